"""The operator's command line, `python -m server admin …` (docs/operating.md, The operator's command line): on the
store a deployment runs on (an embedded data directory or Redis, the server's own flags and variables).

    cli.py         the commands, their output (a table or --json) and their one-line failures
    inventory.py   what the store holds: campaigns and rooms, state, owner, players, size, last activity
    exports.py     the export file (a versioned gzip'd tar with checksums)
    transfer.py    a campaign exported from a store and imported into one (restore, move, fork)
    forks.py       a campaign cut at a turn under a new id
    claims.py      a campaign's rooms held while a command writes them (refused while a server has one open)
    retention.py   archive, delete, and the retention rule (also run by a server with --retention-days)
    tokens.py      tokens revoked and re-issued
"""
