"""Paddock HTTP routers, one per resource."""
