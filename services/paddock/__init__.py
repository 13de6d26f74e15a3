"""The paddock: analytics tools over the read-only lake (agents and the HTTP API come next)."""
