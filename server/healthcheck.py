"""`python -m server.healthcheck`: exit 0 when this machine's server answers /healthz with 200, else 1 — the
container health check (deploy/Dockerfile). It reads the same flags and variables as the server, so it asks the
port the server was configured with (KS_PORT), not a fixed one."""

from __future__ import annotations

import sys
import urllib.request
from collections.abc import Sequence

from server.settings import parse


def main(argv: Sequence[str] | None = None) -> int:
    settings = parse(argv)
    host = "127.0.0.1" if settings.host in ("", "0.0.0.0", "::") else settings.host
    if ":" in host:
        host = f"[{host}]"
    try:
        with urllib.request.urlopen(f"http://{host}:{settings.port}/healthz", timeout=3) as answer:
            return 0 if answer.status == 200 else 1
    except OSError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
