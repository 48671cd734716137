"""The built client is served properly (issue 16 §8): compressed twins of the assets, a year's cache for the hashed
ones, the page itself always asked again, the rulebook's pages and a favicon."""

from __future__ import annotations

import gzip
import urllib.request
from pathlib import Path

from tests.conftest import ServerProcess

SCRIPT = b"console.log('kriegsspiel');\n" * 200


def _get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
        return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()


def test_assets_are_compressed_and_cached_for_good_the_page_never(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "rules" / "en").mkdir(parents=True)
    (dist / "index.html").write_text('<!doctype html><script src="/assets/index-Ab12Cd.js"></script>')
    (dist / "assets" / "index-Ab12Cd.js").write_bytes(SCRIPT)
    (dist / "assets" / "index-Ab12Cd.js.gz").write_bytes(gzip.compress(SCRIPT))
    (dist / "assets" / "favicon-Zz9.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    (dist / "rules" / "en" / "battle.html").write_text('<h3 id="N-MORALE-5">N-MORALE-5 — Dispersal</h3>')
    server = ServerProcess(tmp_path / "data", "--client-dir", str(dist)).start()
    try:
        status, headers, body = _get(server.url + "/assets/index-Ab12Cd.js", **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["content-encoding"] == "gzip"
        assert gzip.decompress(body) == SCRIPT
        assert headers["cache-control"] == "public, max-age=31536000, immutable"
        _, plain, body = _get(server.url + "/assets/index-Ab12Cd.js")
        assert "content-encoding" not in plain and body == SCRIPT
        _, page, _ = _get(server.url + "/")
        assert page["cache-control"] == "no-cache"
        _, rules, body = _get(server.url + "/rules/en/battle.html")
        assert b'id="N-MORALE-5"' in body and rules["cache-control"] == "public, max-age=3600"
        _, icon, _ = _get(server.url + "/favicon.ico")
        assert icon["content-type"] == "image/svg+xml"
    finally:
        server.stop()
