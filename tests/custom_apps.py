"""``app_with(**settings)``: an app on the seeded database with settings of a test's own.

Creating an app binds the shared database proxy; after the test, tests/conftest.py closes
every app it made and puts the previous binding back, so the session's ``app`` keeps working.
"""
import pytest

from app import create_app
from conftest import TEST_SETTINGS


@pytest.fixture
def app_with(seeded):
    def make(database_url=None, **settings):
        return create_app({"DATABASE_URL": database_url or seeded[0], **TEST_SETTINGS, **settings})

    return make
