"""Diff: a festival document against the stored rows, section by section."""
