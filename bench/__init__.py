"""Benchmarks of the referee, its engines and peers (RLCard, OpenSpiel).

One command: ``python bench/run.py [--quick]`` (or ``referee bench``).
Benchmarks print figures; nothing here is a pass/fail test.
"""
