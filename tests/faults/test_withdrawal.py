"""One wrong chest number must not unpublish a winner: withdrawing an entry that has a
published result is refused (the row must also withdraw the result), and ``--dry-run``
lists the published results that would go."""
import json
import os
import subprocess

from conftest import SMALL, writable
from db.source import models as m
from test_multiprocess import festival_api


def published_entry(fixture):
    """``(registration id, result id)`` of an entry whose result is published."""
    for result in fixture["results"]:
        if result.get("is_published") and result.get("is_public", True) and result.get("registration"):
            return result["registration"], result["id"]
    raise AssertionError("the fixture has no published result")


def test_withdrawing_an_entry_with_a_published_result_is_refused_and_the_dry_run_says_why(
        database, fixture_data, tmp_path):
    registration, result = published_entry(fixture_data[SMALL])
    update = tmp_path / "withdraw.json"
    update.write_text(json.dumps({"formatVersion": 1, "festival": {"slug": SMALL},
                                  "registrations": [{"id": registration, "withdrawn": True}]}))
    env = {**os.environ, "DATABASE_URL": database}

    checked = subprocess.run(festival_api() + ["import", "--update", "--dry-run", str(update)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert "published result" in checked.stderr.lower(), checked.stderr

    refused = subprocess.run(festival_api() + ["import", "--update", str(update)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "published result" in refused.stderr.lower(), refused.stderr
    with writable(database):
        assert m.Result.get_by_id(result).is_published
