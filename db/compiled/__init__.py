"""The compiled tables the requests read, and the encodings of what they store."""
