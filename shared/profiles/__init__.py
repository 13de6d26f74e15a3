"""Car and track profiles: YAML files validated by pydantic, shipped inside the package."""
