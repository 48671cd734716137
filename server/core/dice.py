"""Seeded dice carried in an engine's state (decision D-GEN-1).

The generator is SplitMix64: tiny state (one integer), identical on every platform and Python version, so a
room rebuilt from its log or a replay file rolls exactly the same numbers. It is immutable: a roll returns the
value and the next generator, so an engine state holding a `Dice` stays a plain value.
"""

from __future__ import annotations

from dataclasses import dataclass

_MASK = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class Dice:
    state: int

    @classmethod
    def from_seed(cls, seed: int) -> Dice:
        return cls(seed & _MASK)

    def next_u64(self) -> tuple[int, Dice]:
        s = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31), Dice(s)

    def roll(self, faces: int = 6) -> tuple[int, Dice]:
        """A fair roll 1..faces (rejection sampling, no modulo bias)."""
        if faces < 1:
            raise ValueError("a die has at least one face")
        limit = (1 << 64) - ((1 << 64) % faces)
        dice = self
        while True:
            value, dice = dice.next_u64()
            if value < limit:
                return value % faces + 1, dice

    def chance(self, k: int, faces: int = 6) -> tuple[bool, int, Dice]:
        """D-GEN-1: 'probability k/6' succeeds on a roll <= k. Returns (success, face rolled, next dice)."""
        face, dice = self.roll(faces)
        return face <= k, face, dice
