"""The in-car hot path: live ingest, RuleCoach, CoachArbiter, cue stream, single-writer store."""
