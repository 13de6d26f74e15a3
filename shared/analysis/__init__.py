"""The one session analysis: every corner on every valid full lap, its time against your good laps and
why (see docs/ARCHITECTURE.md, "Session analysis")."""
