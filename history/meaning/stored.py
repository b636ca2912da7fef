"""Whether any turn has a vector yet: asked before a search loads numpy or the model."""

from __future__ import annotations

from sqlalchemy import Engine, text

_ANY = text("SELECT 1 FROM turn_vectors LIMIT 1")


def vectors_stored(engine: Engine) -> bool:
    with engine.connect() as conn:
        return conn.execute(_ANY).first() is not None
