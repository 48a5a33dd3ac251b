"""Skeleton files written by ``referee bot new`` (see :mod:`referee.botnew`).

The files here are read as text, never imported: ``python_bot.py`` is kept a
valid Python module (and the other names end in ``.js``/``.json``/``.md``) so
that the package-data rules of ``pyproject.toml`` ship them in a wheel without
any extra pattern. Placeholders of the form ``__UPPER_CASE__`` are replaced by
:func:`referee.botnew.new_bot`; ``__BOTLIB__`` stands for the code of
``sample_bots/botlib.py`` in ``python_bot.py`` (:func:`referee.botnew.botlib_code`)
and of ``sample_bots/node/botlib.js`` in ``node_bot.js``
(:func:`referee.botnew.node_botlib_code`), so each skeleton and the sample bots
of its language share one client.
"""
