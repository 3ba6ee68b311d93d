"""Reads of the store: the statements, and the pure derivations over their rows."""
