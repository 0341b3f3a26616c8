"""The serving path's database: how a request of the HTTP service reads its festival.

``snapshot.py`` is in charge of a request's read snapshot and its festival's revision
(read as seldom as the engine allows); ``revision_watch.py`` of every festival's revision
on PostgreSQL, kept in memory from the server's notifications; ``local_copy.py`` of a
PostgreSQL service's local SQLite copy of the compiled tables; ``deadlines.py`` of the
deadlines of every PostgreSQL call of a request. The states of the path, and the tests
that hold each transition: ``STATES.md`` beside this file.
"""
