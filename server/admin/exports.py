"""The export file: one campaign — every room's log and snapshot, the campaign's record and (unless left out) the
grants of its tokens — in one gzip'd tar that standard tools can list and check (docs/operating.md, Backups):

    MANIFEST.json            {"format": "kriegsspiel/campaign-export/1", "campaign", "name", "scenario", "teams",
                              "created_ms", "exported_ms", "last_at_ms", "source", "tokens": true|false,
                              "rooms": [{"room", "records", "last_at_ms", "snapshot_index",
                                         "unserved": [[from, to], ...]}, ...]}
    campaign.msgpack         {"meta": the campaign record, "grants": {sha256(token): grant}} ({} without tokens)
    rooms/<room>/records     the room's log: frames of u32 length, u32 crc32, msgpack Record (the embedded
                             journal's framing), records 1..n
    rooms/<room>/snapshot    msgpack RoomSnapshot (absent when the room has none)
    SHA256SUMS               `sha256sum -c` lines for every file above

`unserved` are the stretches after the room's last record when its store did not serve it (the service down, a
dead owner's room not yet adopted), up to the export: an import skips them on the clocks, with the time since the
export. Records and snapshots are kept byte for byte as the store had them, so any reader of the store's formats
(server/store/records.py) reads them. A reader refuses another format or version, a file whose checksums do not
match, and a log that is not records 1..n.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from server.admin.errors import AdminError
from server.rooms.ids import RoomId
from server.store.embedded.journal import frame, frames
from server.store.records import Record, RoomSnapshot

FORMAT = "kriegsspiel/campaign-export/1"
MANIFEST = "MANIFEST.json"
SUMS = "SHA256SUMS"


@dataclass(frozen=True, slots=True)
class RoomExport:
    room: str
    records: tuple[Record, ...]
    snapshot: RoomSnapshot | None = None
    unserved: tuple[tuple[int, int], ...] = ()
    """After the last record, until the export: when its store did not serve the room (clocks skip it)."""

    @property
    def last_at_ms(self) -> int:
        return self.records[-1].at_ms if self.records else 0


@dataclass(frozen=True, slots=True)
class CampaignExport:
    campaign: str
    meta: Mapping[str, Any]
    grants: Mapping[str, Mapping[str, Any]] | None
    """None: exported without its tokens (an import then issues new ones)."""
    rooms: tuple[RoomExport, ...]
    exported_ms: int
    source: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Whatever else the manifest says (a reader keeps what it does not know)."""

    @property
    def records(self) -> int:
        return sum(len(r.records) for r in self.rooms)

    @property
    def last_at_ms(self) -> int:
        return max((r.last_at_ms for r in self.rooms), default=0)

    def manifest(self) -> dict[str, Any]:
        return {
            **self.extra, "format": FORMAT, "campaign": self.campaign, "name": self.meta.get("name"),
            "scenario": self.meta.get("scenario"), "teams": self.meta.get("teams"),
            "created_ms": self.meta.get("created_ms"), "exported_ms": self.exported_ms, "source": self.source,
            "tokens": self.grants is not None, "last_at_ms": self.last_at_ms,
            "rooms": [{"room": r.room, "records": len(r.records), "last_at_ms": r.last_at_ms,
                       "snapshot_index": r.snapshot.index if r.snapshot is not None else None,
                       "unserved": [list(s) for s in r.unserved]} for r in self.rooms],
        }


def write(path: str | os.PathLike[str], export: CampaignExport) -> str:
    """Write the export to `path` (whole or not at all: a temporary file renamed); returns the file's sha256."""
    files: list[tuple[str, bytes]] = [(MANIFEST, json.dumps(export.manifest(), indent=1).encode())]
    files.append(("campaign.msgpack", _pack({"meta": dict(export.meta), "grants": {
        k: dict(v) for k, v in (export.grants or {}).items()}})))
    for room in export.rooms:
        files.append((f"rooms/{room.room}/records", b"".join(frame(r.pack()) for r in room.records)))
        if room.snapshot is not None:
            files.append((f"rooms/{room.room}/snapshot", room.snapshot.pack()))
    files.append((SUMS, "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in files).encode()))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    with open(tmp, "wb") as raw:
        with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
            for name, data in files:
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(data), export.exported_ms // 1000, 0o600
                tar.addfile(info, io.BytesIO(data))
        raw.flush()
        os.fsync(raw.fileno())
    os.chmod(tmp, 0o600)  # the grants are token hashes, but the spectators' public link is in clear
    os.replace(tmp, target)
    return file_sha256(target)


def file_sha256(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest alone (the first member: an archive is listed without reading its logs)."""
    with _open(path) as tar:
        first = tar.next()
        if first is None or first.name != MANIFEST:
            raise AdminError(f"{path} is not a campaign export (no {MANIFEST} first)")
        return _manifest(path, _member(tar, first))


def read(path: str | os.PathLike[str]) -> CampaignExport:
    """The whole export, every checksum and every log checked."""
    with _open(path) as tar:
        data = {m.name: _member(tar, m) for m in tar if m.isfile()}
    if MANIFEST not in data or SUMS not in data:
        raise AdminError(f"{path} is not a campaign export (no {MANIFEST} or {SUMS})")
    sums = {}
    for line in data.pop(SUMS).decode().splitlines():
        digest, _, name = line.partition("  ")
        sums[name] = digest
    if set(sums) != set(data):
        raise AdminError(f"{path} is damaged: its files and {SUMS} disagree ({sorted(set(sums) ^ set(data))})")
    for name, content in data.items():
        if hashlib.sha256(content).hexdigest() != sums[name]:
            raise AdminError(f"{path} is damaged: {name} does not match its checksum")
    manifest = _manifest(path, data[MANIFEST])
    campaign_id = str(manifest["campaign"])
    held = msgpack.unpackb(data["campaign.msgpack"], raw=False, strict_map_key=False)
    rooms = []
    for entry in manifest["rooms"]:
        room_id = str(entry["room"])
        parsed = RoomId.parse(room_id)
        if parsed is None or parsed.campaign != campaign_id:
            raise AdminError(f"{path}: {room_id!r} is not a room of campaign {campaign_id}")
        raw = data.get(f"rooms/{room_id}/records", b"")
        records = tuple(Record.unpack(body) for body in frames(raw))
        if [r.index for r in records] != list(range(1, int(entry["records"]) + 1)):
            raise AdminError(f"{path}: the log of {room_id} is not records 1..{entry['records']}")
        snapshot_raw = data.get(f"rooms/{room_id}/snapshot")
        snapshot = RoomSnapshot.unpack(snapshot_raw) if snapshot_raw is not None else None
        rooms.append(RoomExport(room_id, records, snapshot, tuple((int(a), int(b)) for a, b in entry["unserved"])))
    known = {"format", "campaign", "name", "scenario", "teams", "created_ms", "exported_ms", "source", "tokens",
             "last_at_ms", "rooms"}
    return CampaignExport(campaign_id, dict(held["meta"]), dict(held["grants"]) if manifest["tokens"] else None,
                          tuple(rooms), int(manifest["exported_ms"]), str(manifest.get("source", "")),
                          {k: v for k, v in manifest.items() if k not in known})


def _open(path: str | os.PathLike[str]) -> tarfile.TarFile:
    try:
        return tarfile.open(path, mode="r:gz")
    except FileNotFoundError:
        raise AdminError(f"no file {path}") from None
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise AdminError(f"{path} is not a campaign export (a gzip'd tar): {exc}") from None


def _member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    try:
        f = tar.extractfile(member)
        return f.read() if f is not None else b""
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise AdminError(f"{tar.name!s} is damaged: {member.name}: {exc}") from None


def _manifest(path: str | os.PathLike[str], raw: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(raw)
    except ValueError:
        raise AdminError(f"{path}: its {MANIFEST} is not JSON") from None
    fmt = manifest.get("format") if isinstance(manifest, dict) else None
    if not isinstance(fmt, str) or not fmt.startswith("kriegsspiel/campaign-export/"):
        raise AdminError(f"{path} is not a campaign export (its {MANIFEST} names no export format)")
    if fmt != FORMAT:
        raise AdminError(f"{path} is {fmt}, this server reads {FORMAT}: import it with the version that wrote it")
    return manifest  # type: ignore[no-any-return]


def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


__all__ = ["FORMAT", "CampaignExport", "RoomExport", "file_sha256", "read", "read_manifest", "write"]
