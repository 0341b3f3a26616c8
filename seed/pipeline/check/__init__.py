"""Check: natural keys, the shape and references of the rows, the points and positions of results."""
