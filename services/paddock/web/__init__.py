"""The tablet PWA: plain static files served by the paddock at ``/`` (no build step)."""
