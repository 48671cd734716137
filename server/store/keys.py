"""Every Redis key and pub/sub channel name, in one place (docs/operating.md lists them).

`prefix` namespaces one deployment (default "ks"). Room ids are server/rooms/ids.py's.
"""

from __future__ import annotations


def room_events(prefix: str, room: str) -> str:
    """Pub/sub channel carrying a room's events (msgpack batches) to every node."""
    return f"{prefix}:room:{room}:events"


def room_log(prefix: str, room: str) -> str:
    """Stream holding a room's accepted commands with their events; entry id `<index>-0`."""
    return f"{prefix}:room:{room}:log"


def room_logs(prefix: str) -> str:
    """SCAN pattern of every room's log stream (room_of_log reads the room back)."""
    return f"{prefix}:room:*:log"


def room_of_log(prefix: str, key: str) -> str:
    return key[len(f"{prefix}:room:"):-len(":log")]


def room_snapshot(prefix: str, room: str) -> str:
    return f"{prefix}:room:{room}:snapshot"


def alive(prefix: str) -> str:
    """Sorted set room → last-alive mark (ms) of the rooms owned by a node; a released room leaves it, so a
    stale member is an orphan (its owner died) and its downtime starts at its mark."""
    return f"{prefix}:alive"


def service_alive(prefix: str) -> str:
    """The last time (ms) any node was seen alive: a node starting after a longer silence records an outage."""
    return f"{prefix}:service:alive"


def outages(prefix: str) -> str:
    """List of msgpack [from, to]: the times the whole service was down (clocks skip them)."""
    return f"{prefix}:outages"


def schedule(prefix: str) -> str:
    """Sorted set room → its next timer: clock deadlines and lockout ends fire even in rooms nobody opened. Scores
    are service time (wall ms less the total of `outages`), so a deadline stays put across an outage."""
    return f"{prefix}:schedule"


def seat(prefix: str, campaign: str, player: str) -> str:
    """The session playing a seat now (`<node>/<session>`): a sign-in elsewhere kicks it (close 4009)."""
    return f"{prefix}:seat:{campaign}:{player}"


def room_lease(prefix: str, room: str) -> str:
    """`<node> <epoch>` with a time-to-live: the one node that owns the room, and since when (its epoch)."""
    return f"{prefix}:room:{room}:lease"


def room_epoch(prefix: str, room: str) -> str:
    """Counter of the room's lease holders: each new holder's epoch, which the log's append checks (fencing)."""
    return f"{prefix}:room:{room}:epoch"


def node_commands(prefix: str, node: str) -> str:
    """Pub/sub channel on which a node takes commands forwarded to the rooms it owns."""
    return f"{prefix}:node:{node}:commands"


def node_replies(prefix: str, node: str) -> str:
    return f"{prefix}:node:{node}:replies"


def campaigns(prefix: str) -> str:
    """Hash campaign id → msgpack campaign record."""
    return f"{prefix}:campaigns"


def tokens(prefix: str) -> str:
    """Hash sha256(token) → msgpack grant (campaign, role, team, seat)."""
    return f"{prefix}:tokens"


def presence(prefix: str, node: str) -> str:
    """Hash room → msgpack {role: count} of the sessions on one node (expires when the node dies)."""
    return f"{prefix}:presence:{node}"


def presence_pattern(prefix: str) -> str:
    return f"{prefix}:presence:*"
