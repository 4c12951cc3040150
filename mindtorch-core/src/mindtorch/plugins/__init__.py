"""The backend plugin system: hookspecs, discovery and the resolved registry."""
from .hookspec import hookimpl, PLUGIN_API_VERSION  # noqa: F401
from .backend import Backend  # noqa: F401
