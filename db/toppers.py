"""Leaderboards ("toppers"): computed from published public results, stored with lastComputedAt."""


def recompute_toppers(festival):
    """Recompute every topper placeholder of ``festival``."""
    return 0
