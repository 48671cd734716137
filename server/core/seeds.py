"""Fair dice (D-GEN-4): a room's seed is committed to when the room opens and revealed when it ends; no seed or
generator state leaves the server before.

- `commitment(room, seed)`: the SHA-256 of the room's id and its seed, published in `room_opened`.
- `child_seed(parent_seed, child_room)`: a child room's (a battle's) seed, an HMAC of its room id keyed with the
  parent's seed. A revealed battle seed says nothing of the campaign's seed or of another battle's; once the
  campaign's seed is revealed anyone can check that every battle's seed was the one owed to it, not a seed chosen
  after the fact.
- `derived(seed, purpose)`: a value for a public use of a room's seed (the battlefield generator's seed, which a
  field's layout may give away): one-way, so the public value tells nothing of the dice.
"""

from __future__ import annotations

import hashlib
import hmac

SEED_BITS = 62
"""Seeds are non-negative integers below 2**62 (msgpack and JSON carry them as plain integers everywhere)."""


def _bytes(seed: int) -> bytes:
    return int(seed).to_bytes(16, "big", signed=True)


def commitment(room: str, seed: int) -> str:
    """D-GEN-4: the commitment a room publishes when it opens: hex SHA-256 of `<room id>:<seed>`."""
    return hashlib.sha256(f"{room}:{int(seed)}".encode()).hexdigest()


def child_seed(parent_seed: int, child_room: str) -> int:
    """D-GEN-4: the seed of child room `child_room` (its full id), derived from the parent's seed."""
    digest = hmac.new(_bytes(parent_seed), f"child:{child_room}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def derived(seed: int, purpose: str) -> int:
    """A public value for `purpose` ("map") drawn one-way from `seed` (D-GEN-4: it reveals nothing of the dice)."""
    digest = hmac.new(_bytes(seed), purpose.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)
