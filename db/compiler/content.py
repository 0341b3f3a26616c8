"""Compile step (to be filled)."""


def compile_content(festival_id, writer):
    pass
