"""``app_with(**settings)``: an app on the seeded database with settings of a test's own.

Creating an app binds the shared database proxy; the fixture puts the previous binding
back afterwards, so the session's ``app`` keeps working.
"""
import pytest

from app import create_app
from conftest import TEST_SETTINGS
from db.database import database


@pytest.fixture
def app_with(seeded):
    previous = database.obj

    def make(database_url=None, **settings):
        return create_app({"DATABASE_URL": database_url or seeded[0], **TEST_SETTINGS, **settings})

    yield make
    if database.obj is not None and not database.obj.is_closed():
        database.obj.close()
    database.initialize(previous)
