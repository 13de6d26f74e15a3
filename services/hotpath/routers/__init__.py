"""One router per resource: health, sessions, ingest, cues."""
