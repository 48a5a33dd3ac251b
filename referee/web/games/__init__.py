"""One replay renderer per game: ``<game>.py`` exports ``TABLE``, a
:class:`referee.web.table.Table` subclass with an ``on_<event>`` method per
event kind of the game's protobuf ``...Event`` message."""
