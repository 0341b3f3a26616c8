"""Data layer: Peewee models, public-visibility scopes and query functions. No Flask here."""
from .database import bind_database, database, is_postgres, make_database  # noqa: F401
