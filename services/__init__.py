"""Pitwall's two processes: the in-car hot path and the paddock."""
