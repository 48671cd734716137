"""How campaign-export-v1.tar.gz beside this file was made (once; never again: it is what version 1 of the export
format looks like, and every later reader must read it):

    python -m tests.admin.export_v1.make_fixture

The Napoleonic campaign of the old-format room fixture (tests/rooms/old_format: a battle room among its rooms),
exported with its tokens at a fixed time.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from server.admin import exports
from server.admin.transfer import export_campaign
from server.store.embedded import open_embedded

HERE = Path(__file__).resolve().parent
OLD = HERE.parent.parent / "rooms" / "old_format" / "embedded"
CAMPAIGN = "a195608c30"
EXPORTED_MS = 1_700_100_000_000


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(OLD, Path(tmp) / "data")
        store = open_embedded(Path(tmp) / "data", read_only=True)
        made = await export_campaign(store, CAMPAIGN, now_ms=EXPORTED_MS, source="tests/rooms/old_format")
        await store.close()
    exports.write(HERE / "campaign-export-v1.tar.gz", made)


if __name__ == "__main__":
    asyncio.run(main())
