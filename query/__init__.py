"""Derivations over the store and the HTTP API that serves them."""
