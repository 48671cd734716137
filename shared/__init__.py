"""What server and clients share: the wire protocol and the scenarios (data)."""
