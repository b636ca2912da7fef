"""The HTTP service: `create_app(index)` is the whole service, `router(index)` its endpoints for
a host app to mount; `serve` runs it on uvicorn."""

from history.api.app import create_app, router, validation_error_handler

__all__ = ["create_app", "router", "validation_error_handler"]
