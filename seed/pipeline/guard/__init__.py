"""Guard: an import takes no published record away unless asked to."""
