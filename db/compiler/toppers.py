"""Compile step (to be filled)."""


def compile_toppers(festival_id, writer):
    pass
