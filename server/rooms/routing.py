"""Where a command goes: to the room on this node if it owns it, else forwarded over the bus to the node holding
the room's lease (which answers with the room's own typed refusal or the sequence number); and the requests other
nodes forward here (commands for rooms owned here, kicks of sessions whose seat was signed in elsewhere, the sessions
of a revoked token)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from server.core.errors import RuleError
from server.rooms.errors import RoomError
from server.rooms.members import Member
from server.rooms.room import Room
from server.store import Store

log = logging.getLogger(__name__)


class Routing:
    def __init__(self, store: Store, bus: Any, node: str, *, owned: Callable[[str], Awaitable[Room | None]],
                 kick: Callable[[str], None], revoked: Callable[[str, str, str], None]):
        self.store, self.bus, self.node = store, bus, node
        self.owned = owned
        self.kick = kick
        self.revoked = revoked

    async def submit(self, room_id: str, kind: str, body: Mapping[str, Any], member: Member) -> int | None:
        """Run a command on the room's owner: here, or forwarded to the node holding its lease."""
        room = await self.owned(room_id)
        if room is not None:
            return await room.submit(kind, body, member)
        holder = await self.store.leases.holder(room_id)
        if holder is None or holder == self.node:
            raise RoomError("no_such_room", f"no room {room_id}")
        try:
            reply = await self.bus.forward(holder, {"room": room_id, "kind": kind, "body": dict(body),
                                                    "member": member.dump()})
        except (LookupError, TimeoutError):
            raise RoomError("internal", f"the node owning {room_id} did not answer; try again") from None
        if not reply.get("ok"):
            raise RoomError(str(reply.get("code", "internal")), str(reply.get("message", "")),
                            rule=reply.get("rule"))
        seq = reply.get("seq")
        return int(seq) if seq is not None else None

    async def serve(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """A request another node forwarded here."""
        if "kick" in request:
            self.kick(str(request["kick"]))
            return {"ok": True}
        if "revoked" in request:
            revoked = request["revoked"]
            self.revoked(str(revoked["campaign"]), str(revoked["player"]), str(revoked.get("reason", "")))
            return {"ok": True}
        try:
            room = await self.owned(str(request["room"]))
            if room is None:
                raise RoomError("internal", "this node no longer owns the room")
            seq = await room.submit(str(request["kind"]), request["body"], Member.load(request["member"]))
            return {"ok": True, "seq": seq}
        except RuleError as exc:
            return {"ok": False, "code": exc.code, "message": exc.message, "rule": exc.rule}
        except Exception as exc:
            log.exception("forwarded command failed")
            return {"ok": False, "code": "internal", "message": str(exc)}
