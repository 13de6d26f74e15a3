"""RuleCoach's rules: technique (per corner, against a reference lap) and car-health safety (per frame)."""
