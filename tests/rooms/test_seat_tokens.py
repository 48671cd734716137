"""A seat's token is pasted into command lines (examples/bot.py --token …, docs/bots.md): it never starts with "-",
which argparse takes for an option — a bot given such a token exited at once, and CI's bot test then waited for
the other seat's turn for ever."""

from __future__ import annotations

from server.rooms.seats import new_token


def test_no_token_starts_like_a_command_line_option() -> None:
    tokens = [new_token() for _ in range(5000)]  # the old tokens: 1 in 64 started with "-" (all but surely seen)
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and {len(t) for t in tokens} == {32}
