"""Command-line entry modules (script layer: they may import :mod:`agents`)."""
