"""Compile step (to be filled)."""


def compile_candidates(festival_id, writer, candidate_ids=None):
    pass
