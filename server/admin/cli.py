"""`python -m server admin COMMAND …`: the operator's commands on a deployment's store (docs/operating.md).

The store is found as the server finds it — `--data-dir` / KS_DATA_DIR (embedded), `--redis-url` / REDIS_URL and
`--redis-prefix` / KS_REDIS_PREFIX — and links use `--public-url` / KS_PUBLIC_URL; those flags may stand anywhere
on the line. `list`, `export` and `verify` only read: safe beside running servers. Every other command writes: under the
embedded store the data directory's server must be stopped (its LOCK says so); under Redis each campaign's rooms
are held while the command writes them, and a room a server has open is refused with the node named.

A failure is one line on stderr saying what and what to do, exit status 1 (2 for a bad command line); `--debug`
shows the traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from server.admin import exports, inventory, retention, tokens, transfer, verify
from server.admin.claims import admin_node
from server.admin.errors import AdminError
from server.admin.forks import ForkPoint, fork
from server.admin.inventory import CampaignInfo
from server.backends import open_redis
from server.bus import EventBus
from server.bus.local import LocalBus
from server.engines import ENGINES
from server.rooms.campaigns import Tokens
from server.rooms.scheduler import wall_ms
from server.settings import Settings, _parser, join_link, parse, redacted
from server.store import Store
from server.store.embedded import DataDirLocked, locked, open_embedded

Explain = Callable[[BaseException, Settings], "str | None"]

STORE_FLAGS = ("--data-dir, --redis-url, --redis-prefix, --public-url, --archive-dir, --debug and the server's "
               "other flags, with the same environment variables (REDIS_URL, KS_DATA_DIR, ...; see "
               "`python -m server --help`)")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _commands() -> _Parser:
    p = _Parser(prog="python -m server admin", description="The operator's commands on a deployment's store. "
                f"Where the store is: {STORE_FLAGS}. `list` and `export` are safe while servers run; the others "
                "need the embedded store's server stopped, and under Redis refuse rooms a server has open.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    ls = sub.add_parser("list", help="campaigns and their rooms: state, owner node, players, size, last activity")
    ls.add_argument("campaigns", nargs="*", metavar="CAMPAIGN", help="only these (default: all, archived too)")
    ls.add_argument("--rooms", action="store_true", help="a line for each room as well")
    ls.add_argument("--json", action="store_true", help="JSON instead of a table (rooms included)")

    ex = sub.add_parser("export", help="a campaign's rooms (logs, snapshots) and tokens to one file")
    ex.add_argument("campaign", metavar="CAMPAIGN")
    ex.add_argument("file", metavar="FILE", help="the export file to write (a gzip'd tar; .tar.gz)")
    ex.add_argument("--without-tokens", action="store_true",
                    help="leave the token grants out (an import then issues new links)")

    im = sub.add_parser("import", help="a campaign from an export file into this store (restore, move, fork)")
    im.add_argument("file", metavar="FILE")
    im.add_argument("--replace", action="store_true",
                    help="overwrite the campaign when this store has it (refused while a server has it open)")
    im.add_argument("--fork-at", metavar="turn:N|seq:N", type=ForkPoint.parse,
                    help="import the campaign as it was when turn N began (or after event seq N) under a new id "
                         "with new tokens, beside the original")
    im.add_argument("--new-tokens", action="store_true", help="issue new tokens: the old links stop working")

    ar = sub.add_parser("archive", help="export campaigns to the archive directory, then delete them from the store")
    ar.add_argument("campaigns", nargs="+", metavar="CAMPAIGN")
    ar.add_argument("--force", action="store_true", help="archive a campaign that is still being played too")

    de = sub.add_parser("delete", help="delete campaigns from the store (cannot be undone: archive keeps a copy)")
    de.add_argument("campaigns", nargs="+", metavar="CAMPAIGN")
    de.add_argument("--yes", action="store_true", help="yes, delete them")
    de.add_argument("--force", action="store_true", help="delete a campaign that is still being played too")

    re = sub.add_parser("retention", help="archive every campaign over and unused for N days")
    re.add_argument("--days", type=float, required=True, metavar="N")
    re.add_argument("--dry-run", action="store_true", help="only say which campaigns it would archive")

    ve = sub.add_parser("verify", help="a finished room's log replayed from its revealed seed: OK or MISMATCH "
                        "(fair dice, D-GEN-4)")
    ve.add_argument("rooms", nargs="+", metavar="ROOM", help="room ids (c-<campaign>, b-<campaign>-<n>)")

    for name, what in (("revoke", "revoke tokens: their links stop working, their sessions are closed"),
                       ("reissue", "new tokens for seats: the old links stop working; prints the new links")):
        t = sub.add_parser(name, help=what)
        t.add_argument("campaign", metavar="CAMPAIGN")
        t.add_argument("players", nargs="+", metavar="WHO", help="a seat's player (red-1, ...), moderator, spectator")
    return p


def split(argv: Sequence[str], server: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """(the admin command's own arguments, the server's flags), wherever on the line the latter stand."""
    takes_value = {o: a.nargs != 0 for a in server._actions for o in a.option_strings if o not in ("-h", "--help")}
    own: list[str] = []
    theirs: list[str] = []
    args = iter(argv)
    for arg in args:
        name = arg.split("=", 1)[0]
        if name in takes_value:
            theirs.append(arg)
            if takes_value[name] and "=" not in arg:
                theirs.append(next(args, ""))
        else:
            own.append(arg)
    return own, theirs


@dataclass(frozen=True, slots=True)
class Where:
    """The store a command runs on, in words for its output."""

    settings: Settings

    @property
    def redis(self) -> bool:
        return bool(self.settings.redis_url)

    def __str__(self) -> str:
        s = self.settings
        if s.redis_url:
            return f"Redis {redacted(s.redis_url)} (prefix {s.redis_prefix})"
        return f"embedded store {s.data_dir}"


@contextlib.asynccontextmanager
async def opened(where: Where, *, write: bool) -> AsyncIterator[tuple[Store, EventBus]]:
    """The store (and a bus to reach the nodes), read only unless `write`."""
    s = where.settings
    if where.redis:
        assert s.redis_url is not None
        store, bus = await open_redis(s.redis_url, s.redis_prefix)
        await bus.serve(admin_node(), _not_a_server)  # to hear the nodes' answers
        try:
            yield store, bus
        finally:
            await bus.close()
            await store.close()
        return
    try:
        store = open_embedded(s.data_dir, fsync=s.fsync, read_only=not write)
    except DataDirLocked:
        raise AdminError(f"the data directory {s.data_dir} is in use by its running server: stop it first "
                         f"(`admin list` and `admin export` work while it runs)") from None
    except FileNotFoundError:
        raise AdminError(f"no embedded store in {s.data_dir}: point --data-dir (KS_DATA_DIR) at the server's data "
                         f"directory, or --redis-url (REDIS_URL) at its Redis") from None
    try:
        yield store, LocalBus()
    finally:
        await store.close()


async def _not_a_server(request: Any) -> dict[str, Any]:
    return {"ok": False, "code": "internal", "message": "an operator's command is working on this campaign"}


def _ago(ms: int, now_ms: int) -> str:
    if not ms:
        return "-"
    s = max(0, now_ms - ms) // 1000
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return f"{s // size} {unit} ago"
    return f"{s} s ago"


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def _players(c: CampaignInfo) -> str:
    if c.players_online is None:
        return str(c.seats)
    spectators = f" +{c.spectators_online} spec" if c.spectators_online else ""
    return f"{c.players_online}/{c.seats}{spectators}"


def render(campaigns: list[CampaignInfo], *, rooms: bool, now_ms: int) -> str:
    rows = [["CAMPAIGN", "NAME", "SCENARIO", "STATE", "OWNER", "PLAYERS", "SIZE", "LAST ACTIVITY"]]
    for c in campaigns:
        rows.append([c.campaign, c.name[:32], c.scenario, c.state, c.owner or "-", _players(c), _size(c.bytes),
                     _ago(c.last_at_ms, now_ms)])
        if rooms:
            for r in c.rooms:
                online = f"{sum(r.online.values())} online" if r.online else ""
                rows.append([f"  {r.room}", f"{r.records} records", r.kind, r.state, r.owner or "-", online,
                             _size(r.bytes) if r.bytes else "-", _ago(r.last_at_ms, now_ms)])
    return _table(rows) if campaigns else "no campaigns"


def _links(made: Tokens, public_url: str) -> list[str]:
    lines = [("moderator", made.moderator), ("spectators", made.spectator),
             *((s["player"], s["token"]) for s in made.seats)]
    return [f"  {who:<11} {join_link(public_url, token)}" for who, token in lines]


Out = Callable[[str], None]


async def _list(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    s = where.settings
    async with opened(where, write=False) as (store, _):
        owner = "the server" if not where.redis and locked(s.data_dir) else None
        found = await inventory.live(store, transfer.services(store, ENGINES, now), presence=where.redis,
                                     owner=owner, only=args.campaigns)
    found += [c for c in inventory.archived(s.archive_dir, skip={c.campaign for c in found})
              if not args.campaigns or c.campaign in args.campaigns]
    if args.json:
        out(json.dumps({"store": str(where), "now_ms": now, "campaigns": [c.dump() for c in found]}, indent=1))
    else:
        out(render(found, rooms=args.rooms, now_ms=now))


async def _export(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    async with opened(where, write=False) as (store, _):
        made = await transfer.export_campaign(store, args.campaign, now_ms=now, tokens=not args.without_tokens,
                                              source=str(where))
    digest = await asyncio.to_thread(exports.write, args.file, made)
    size = await asyncio.to_thread(os.path.getsize, args.file)
    out(f"Exported campaign {made.campaign} ({made.meta.get('name')}): {len(made.rooms)} rooms, "
        f"{made.records} records, {'with' if made.grants is not None else 'without'} its tokens -> "
        f"{args.file} ({_size(size)}, sha256 {digest})")


async def _import(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    export = await asyncio.to_thread(exports.read, args.file)
    async with opened(where, write=True) as (store, _):
        cut = None
        if args.fork_at is not None:
            cut = fork(export, args.fork_at, transfer.services(store, ENGINES, now), now_ms=now)
            export = cut.export
        done = await transfer.import_campaign(
            store, export, ENGINES, now_ms=now, node=admin_node(), replace=args.replace, new_tokens=args.new_tokens,
            since_ms=cut.cut_ms if cut is not None else None)
    what = f"forked at {cut.cut} as" if cut is not None else "imported as"
    out(f"Campaign {args.file} {what} {done.campaign} ({done.meta.get('name')}) into {where}: {done.rooms} "
        f"rooms, {done.records} records{' (the one there replaced)' if done.replaced else ''}.")
    if done.tokens is None:
        out("Its tokens came with it: the old links work.")
    else:
        out("New links (shown once; the old ones do not work here):")
        for line in _links(done.tokens, where.settings.public_url or ""):
            out(line)


async def _archive_or_delete(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    s, node = where.settings, admin_node()
    async with opened(where, write=True) as (store, _):
        states = {c.campaign: c for c in await inventory.live(
            store, transfer.services(store, ENGINES, now), presence=False, only=args.campaigns)}
        running = [c for c, info in states.items() if info.state == "running"]
        if running and not args.force:
            raise AdminError(f"campaign {', '.join(running)} is still being played: add --force to "
                             f"{args.command} it anyway")
        if args.command == "delete" and not args.yes:
            listed = ", ".join(f"{c} ({i.name}, {i.state}, {len(i.rooms)} rooms, {_size(i.bytes)})"
                               for c, i in states.items())
            raise AdminError(f"deleting {listed} cannot be undone: add --yes (`admin archive` keeps a copy)")
        for campaign in args.campaigns:
            if args.command == "delete":
                n = await retention.delete_campaign(store, campaign, node=node)
                out(f"Deleted campaign {campaign} ({states[campaign].name}): {n} rooms.")
                continue
            a = await retention.archive_campaign(store, campaign, s.archive_dir, node=node, now_ms=now,
                                                 source=str(where))
            out(f"Archived campaign {campaign} ({a.name}): {a.rooms} rooms, {a.records} records -> {a.path} "
                f"(read back and checked; sha256 {a.sha256}), deleted from {where}.")


async def _retention(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    async with opened(where, write=not args.dry_run) as (store, _):
        done, skipped = await retention.retain(
            store, transfer.services(store, ENGINES, now), where.settings.archive_dir, args.days,
            node=admin_node(), now_ms=now, source=str(where), dry_run=args.dry_run)
    for item in done:
        out(f"would archive {item}" if isinstance(item, str) else
            f"Archived campaign {item.campaign} ({item.name}) -> {item.path}")
    for line in skipped:
        out(f"skipped {line}")
    if not done and not skipped:
        out(f"No campaign over and unused for {args.days:g} days.")


async def _tokens(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    async with opened(where, write=True) as (store, bus):
        for player in args.players:
            if args.command == "revoke":
                n, told = await tokens.revoke_tokens(store, bus, admin_node(), args.campaign, player)
                out(f"Revoked {n} token(s) of {player} in campaign {args.campaign}; its sessions closed"
                    + (f" ({told} node(s) told)." if where.redis else "."))
            else:
                member, token = await tokens.reissue_token(store, bus, admin_node(), args.campaign, player)
                out(f"New link for {member.player} in campaign {args.campaign} (the old one is revoked): "
                    f"{join_link(where.settings.public_url or '', token)}")


async def _verify(args: argparse.Namespace, where: Where, out: Out, now: int) -> None:
    bad = []
    async with opened(where, write=False) as (store, _):
        for room in args.rooms:
            verdict = await verify.verify(store, ENGINES, room)
            for line in verdict.lines():
                out(line)
            if not verdict.ok:
                bad.append(room)
    if bad:
        raise AdminError(f"{', '.join(bad)}: the log does not match the revealed seed (see above)")


COMMANDS = {"list": _list, "export": _export, "import": _import, "archive": _archive_or_delete,
            "delete": _archive_or_delete, "retention": _retention, "revoke": _tokens, "reissue": _tokens,
            "verify": _verify}


async def run(args: argparse.Namespace, where: Where, out: Out) -> None:
    await COMMANDS[args.command](args, where, out, wall_ms())


def main(argv: Sequence[str], explain: Explain, env: dict[str, str] | None = None) -> int:
    own, theirs = split(argv, _parser({}))
    settings = parse(theirs, env)
    args = _commands().parse_args(own)
    where = Where(settings)
    try:
        asyncio.run(run(args, where, lambda line: print(line, flush=True)))
        return 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `admin list | head`
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - nothing more is written; the interpreter flushes it
        return 0
    except Exception as exc:
        if settings.debug:
            raise
        line = str(exc) if isinstance(exc, AdminError) else explain(exc, settings)
        if line is None:
            print(f"error: unexpected failure: {type(exc).__name__}: {exc} (run with --debug for the traceback)",
                  file=sys.stderr, flush=True)
        else:
            print(f"error: {line}", file=sys.stderr, flush=True)
        return 1
