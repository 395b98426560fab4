"""Shared core of both games: compilation, errors, encoder registries and rendering helpers."""
