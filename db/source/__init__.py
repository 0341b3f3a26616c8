"""The source side: the tables the importer writes, their privacy rules (``visibility.py``), keys,
revisions, the leaderboard computation, and the loaders the compile step reads."""
