"""See the games: the tournament report (``referee report``), the live site
(``referee web``) and the replay viewer shared by both.

* :mod:`referee.web.replay`: match log -> per-view replay data (hidden cards
  filtered out before anything is built);
* :mod:`referee.web.table` and each game's ``referee/games/<game>/replay.py``:
  the table one view sees, one small renderer per game;
* :mod:`referee.web.site`: the pages (Jinja2 templates in ``templates/``,
  script and style in ``static/``), written as files by ``referee report``;
* :mod:`referee.web.app`: the same pages served live (Starlette) by ``referee web``.
"""
