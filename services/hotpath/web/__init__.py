"""The in-car drive screen: static files served by the hot path at ``/drive`` (no build step)."""
