"""Pitwall's own package: signal model, car and track profiles, importers, storage layout, settings."""

__version__ = "0.1.0"
