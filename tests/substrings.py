"""One pass of a text for many literal strings at once.

``str.__contains__`` once a needle reads the whole text once a needle; a regular expression of
the needles' trie reads it once, trying at each place only the needles that start there.
"""
import re


def any_of(needles):
    """A compiled pattern that matches wherever any of ``needles`` (non-empty) occurs."""
    trie = {}
    for needle in needles:
        assert needle, "an empty needle is in every text"
        node = trie
        for char in needle:
            node = node.setdefault(char, {})
        node[""] = {}
    return re.compile(_pattern(trie))


def _pattern(node):
    if "" in node:
        # a needle ends here: matching it is enough, longer ones need not be tried
        return ""
    branches = [re.escape(char) + _pattern(child) for char, child in sorted(node.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
