"""Storage: the hot path's single-writer DuckDB file and the immutable Parquet lake it publishes."""
