"""Card-game referee: rules engines, match runner, gRPC service and CLI."""

import os as _os

# gRPC core logs a line at every fork() of a bot process from a threaded
# referee; they are noise for users. Users can still override these.
_os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

__version__ = "0.1.0"
