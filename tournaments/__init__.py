"""Tournaments: tournament files, schedules, execution, TrueSkill ratings, results store."""
