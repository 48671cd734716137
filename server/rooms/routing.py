"""Where a command goes: to the room on this node if it owns it, else forwarded over the bus to the node holding
the room's lease (which answers with the room's own typed refusal or the sequence number); and the requests other
nodes forward here (commands for rooms owned here, kicks of sessions whose seat was signed in elsewhere, the sessions
of a revoked token)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from server.core.errors import RuleError
from server.rooms.errors import Retryable, RoomError, outcome_unknown, unavailable
from server.rooms.members import Member
from server.rooms.requests import Request
from server.rooms.room import Room
from server.store import Store, unreachable

log = logging.getLogger(__name__)

FORWARD_TIMEOUT_S = 3.0
"""How long a forwarded command waits for its owner's answer before the client is told `outcome_unknown`."""
TAKEOVER_RETRY_MS = 250
"""The retry hint while a dead owner's room is being taken over (docs/operating.md, Failover)."""


class Routing:
    def __init__(self, store: Store, bus: Any, node: str, *, owned: Callable[[str], Awaitable[Room | None]],
                 kick: Callable[[str], None], revoked: Callable[[str, str, str], None]):
        self.store, self.bus, self.node = store, bus, node
        self.owned = owned
        self.kick = kick
        self.revoked = revoked

    async def submit(self, room_id: str, kind: str, body: Mapping[str, Any], member: Member,
                     request: Request | None = None) -> int | None:
        """Run a command on the room's owner: here, or forwarded to the node holding its lease. What cannot be
        reached is a retryable error: `unavailable` when the command surely was not applied, `outcome_unknown`
        when the owner may have applied it (its answer did not come)."""
        try:
            for _ in range(2):  # the owner's lease may run out between our try to take it and the look at its holder
                room = await self.owned(room_id)
                holder = None if room is not None else await self.store.leases.holder(room_id)
                if room is not None or holder is not None:
                    break
        except Exception as exc:
            if not unreachable(exc):
                raise
            raise unavailable(f"the store cannot be reached ({type(exc).__name__}); try again", 1000) from None
        if room is not None:
            return await room.submit(kind, body, member, request)
        if holder is None or holder == self.node:
            raise RoomError("no_such_room", f"no room {room_id}")
        forwarded: dict[str, Any] = {"room": room_id, "kind": kind, "body": dict(body), "member": member.dump()}
        if request is not None:
            forwarded["request"] = list(request.pair())
        try:
            reply = await self.bus.forward(holder, forwarded, FORWARD_TIMEOUT_S)
        except LookupError:  # nobody received it: its owner died and its lease has not run out yet
            raise unavailable(f"the node owning {room_id} is gone; another takes the room over shortly",
                              TAKEOVER_RETRY_MS) from None
        except TimeoutError:
            raise outcome_unknown(f"the node owning {room_id} did not answer; retry with the same cid",
                                  TAKEOVER_RETRY_MS) from None
        except Exception as exc:  # the bus (Redis) failed while sending: it may have gone out
            raise outcome_unknown(f"forwarding to the node owning {room_id} failed ({type(exc).__name__}); "
                                  "retry with the same cid", 1000) from None
        if not reply.get("ok"):
            code, message = str(reply.get("code", "internal")), str(reply.get("message", ""))
            if reply.get("retry_after_ms") is not None:
                raise Retryable(code, message, int(reply["retry_after_ms"]))
            raise RoomError(code, message, rule=reply.get("rule"))
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
                raise unavailable("this node no longer owns the room; try again", TAKEOVER_RETRY_MS)
            asked = request.get("request")
            seq = await room.submit(str(request["kind"]), request["body"], Member.load(request["member"]),
                                    Request(int(asked[0]), str(asked[1])) if asked else None)
            return {"ok": True, "seq": seq}
        except Retryable as exc:
            return {"ok": False, "code": exc.code, "message": exc.message, "retry_after_ms": exc.retry_after_ms}
        except RuleError as exc:
            return {"ok": False, "code": exc.code, "message": exc.message, "rule": exc.rule}
        except Exception as exc:
            log.exception("forwarded command failed")
            return {"ok": False, "code": "internal", "message": str(exc)}
