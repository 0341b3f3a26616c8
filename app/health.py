"""``GET /healthz`` for load balancers: 200 while the database answers, 503 when it does not."""
from db.database import database, database_answers, is_postgres

from .smorest import error_body


def healthz():
    """Is this process able to answer API requests?"""
    if not database_answers(database.obj):
        return error_body(503), 503, {"Cache-Control": "no-store"}
    engine = "postgresql" if is_postgres() else "sqlite"
    return {"status": "ok", "database": engine}, 200, {"Cache-Control": "no-store"}


def init_health(app):
    """Serve ``/healthz``: no key, not rate limited, outside ``/public-api/v1``."""
    app.add_url_rule("/healthz", "healthz", healthz, methods=["GET"])
