"""app/door/quiet_log.py: one line per cause per interval, and the count of what was held back."""
import logging

import pytest

from app.door.quiet_log import MAX_CAUSES, QuietLog


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def quiet(caplog):
    clock = Clock()
    logger = logging.getLogger("test.quiet_log")
    caplog.set_level(logging.ERROR, logger="test.quiet_log")
    return QuietLog(logger, seconds=10, clock=clock), clock, caplog


# (cause at a time), ...  ->  the lines written, in order
CASES = [
    ([("a", 0)], ["a"]),
    ([("a", 0), ("a", 1), ("a", 9.9)], ["a"]),
    ([("a", 0), ("b", 1), ("a", 2), ("b", 3)], ["a", "b"]),
    ([("a", 0), ("a", 1), ("a", 2), ("a", 10)], ["a", "a (2 more like it in the last 10 s were not logged)"]),
    ([("a", 0), ("a", 10), ("a", 11), ("a", 20)],
     ["a", "a", "a (1 more like it in the last 10 s were not logged)"]),
]


@pytest.mark.parametrize("events, written", CASES)
def test_one_line_per_cause_per_interval(quiet, events, written):
    log, clock, caplog = quiet
    for cause, at in events:
        clock.now = at
        log.error(cause, cause)
    assert [record.getMessage() for record in caplog.records] == written


def test_what_was_held_back_is_written_once_the_interval_ends():
    records = []
    logger = logging.getLogger("test.quiet_log.flush")
    logger.addHandler(type("H", (logging.Handler,), {"emit": lambda self, r: records.append(r.getMessage())})())
    clock = Clock()
    log = QuietLog(logger, seconds=10, clock=clock)
    for at in range(5):
        clock.now = at
        log.error("deadline", "database did not answer")
    log.flush()  # within the interval: nothing yet
    assert records == ["database did not answer"] and log.held == 4
    clock.now = 10
    log.flush()
    log.flush()
    assert records == ["database did not answer", "deadline: 4 more like it in the last 10 s were not logged"]
    assert log.held == 0
    clock.now = 11
    log.error("deadline", "database did not answer")  # a new outage: logged at once
    assert records[-1] == "database did not answer"


def test_a_traceback_is_written_with_the_first_line_only(quiet):
    log, clock, caplog = quiet
    try:
        raise RuntimeError("boom")
    except RuntimeError as error:
        for _ in range(3):
            log.error("boom", "database error: %s", error, exc_info=error)
    assert [bool(record.exc_info) for record in caplog.records] == [True]


def test_causes_remembered_are_bounded(quiet):
    log, clock, caplog = quiet
    for index in range(MAX_CAUSES * 3):
        log.error(f"cause {index}", "x")
    assert len(log._causes) <= MAX_CAUSES
