"""The question layer: a driver's question read once into a typed ``Question`` (``parse``), its laps
resolved (``resolve``), one plan (``plan``) and one module per family of answers (``families``)."""
