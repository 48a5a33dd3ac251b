"""Skeleton files written by ``referee bot new`` (see :mod:`referee.botnew`).

The files here are read as text, never imported: ``python_bot.py`` is kept a
valid Python module (and the other names end in ``.js``/``.json``/``.md``) so
that the package-data rules of ``pyproject.toml`` ship them in a wheel without
any extra pattern. Placeholders of the form ``__UPPER_CASE__`` are replaced by
:func:`referee.botnew.new_bot`; in ``python_bot.py``, ``__BOTLIB__`` stands
for the code of ``sample_bots/botlib.py`` (:func:`referee.botnew.botlib_code`),
so the skeleton and the sample bots share one client.
"""
