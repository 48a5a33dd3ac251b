"""Card-game referee: rules engines, match runner, gRPC service and CLI."""

__version__ = "0.1.0"
