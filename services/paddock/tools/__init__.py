"""The paddock's analytics tools: plain typed functions over the lake; docstrings are their descriptions."""
