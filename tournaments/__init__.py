"""Tournaments: tournament files, schedules, execution, ratings (batch fit, live TrueSkill), results store."""
