"""Container health check against a real endpoint: ``healthcheck.py URL``.

Exit 0 when URL answers 200 with JSON that says the service is ready: ``{"status": "ok"}`` (the hot
path's and the paddock's ``/health``) or a non-empty ``data`` list (an OpenAI-compatible ``/v1/models``).
Anything else (refused, timeout, 4xx/5xx, other JSON) exits 1 with one line saying why. Standard
library only, so it runs in every image, the model server's included."""

from __future__ import annotations

import json
import sys
import urllib.request


def main(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2.5) as r:
            body = json.load(r)
    except Exception as exc:  # any failure is "unhealthy", said in one line
        sys.stderr.write(f"unhealthy: {url}: {exc}\n")
        return 1
    if isinstance(body, dict) and (body.get("status") == "ok" or body.get("data")):
        return 0
    sys.stderr.write(f"unhealthy: {url} answered {str(body)[:200]}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else 2)
