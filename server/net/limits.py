"""Abuse limits (docs/operating.md, "Limits"): request bodies are capped, and creating a campaign needs the create
token when one is set and is rate-limited per client address; websockets are capped per client address and their
messages rate-limited per token and per address over all their connections (`FloodLimits`, issue 12 §13). Every
HTTP refusal is JSON with its status: 413 `too_large`, 403 `forbidden`, 429 `rate_limited` (with Retry-After) or
`too_many_connections`."""

from __future__ import annotations

import hmac
import ipaddress
import math
import time
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from server.net.ratelimit import Buckets
from server.settings import Settings

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def refusal(status: int, code: str, message: str, **extra: object) -> web.Response:
    headers = {"Retry-After": str(extra["retry_after_s"])} if "retry_after_s" in extra else None
    return web.json_response({"error": code, "message": message, **extra}, status=status, headers=headers)


def body_limit(max_bytes: int) -> Middleware:
    """413 with a message for a body over `max_bytes`, announced (Content-Length) or found while reading."""
    message = f"the request body is larger than this server accepts ({max_bytes} bytes)"

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.content_length is not None and request.content_length > max_bytes:
            return refusal(413, "too_large", message, max_bytes=max_bytes)
        try:
            return await handler(request)
        except web.HTTPRequestEntityTooLarge:
            return refusal(413, "too_large", message, max_bytes=max_bytes)

    return middleware


def _networks(specs: tuple[str, ...]) -> tuple[IpNetwork, ...]:
    return tuple(ipaddress.ip_network(spec.strip(), strict=False) for spec in specs if spec.strip())


class CreateLimits:
    """Who may create a campaign: the create token (when set), then a token bucket per client address — at most
    `create_burst` at once, refilled at `create_per_hour` (0: no limit). Loopback clients are not limited (the
    operator's own scripts, the tests); behind a proxy, list it in `trusted_proxies` so that the address it
    forwards (X-Forwarded-For) is the one limited, not the proxy's."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic):
        self.token = settings.create_token
        self.per_s = settings.create_per_hour / 3600.0
        self.burst = float(max(1, settings.create_burst))
        self.trusted = _networks(settings.trusted_proxies)
        self.buckets = Buckets(self.per_s, self.burst, clock)

    def client(self, request: web.Request) -> str:
        """The client's address: the peer, or — when the peer is a trusted proxy — the last address in
        X-Forwarded-For that is not one of ours."""
        peer = request.remote or ""
        if not self._is_trusted(peer):
            return peer
        hops = [h.strip() for h in ",".join(request.headers.getall("X-Forwarded-For", [])).split(",") if h.strip()]
        for hop in reversed(hops):
            if not self._is_trusted(hop):
                return hop
        return hops[0] if hops else peer

    def _is_trusted(self, address: str) -> bool:
        parsed = _address(address)
        return parsed is not None and any(parsed in net for net in self.trusted)

    def check(self, request: web.Request) -> web.Response | None:
        """None when this request may create a campaign, else the refusal to answer."""
        if self.token:
            given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return refusal(403, "forbidden", "creating a campaign on this server needs its create token: send "
                               "'Authorization: Bearer <token>' (ask the server's operator)")
        if self.per_s <= 0:
            return None
        address = self.client(request)
        parsed = _address(address)
        if parsed is not None and parsed.is_loopback:
            return None
        wait_s = self._take(address)
        if wait_s is None:
            return None
        per_hour = f"{self.per_s * 3600:g}"
        return refusal(429, "rate_limited", f"too many campaigns created from {address}: at most {self.burst:g} at "
                       f"once and {per_hour} an hour; try again in {wait_s} s", retry_after_s=wait_s)

    def _take(self, address: str) -> int | None:
        """Take one token from `address`'s bucket: None when there was one, else the seconds until there is."""
        wait_s = self.buckets.take(address)
        return None if wait_s is None else max(1, math.ceil(wait_s))


def _address(text: str) -> Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


class FloodLimits:
    """What one token or one client address may do over all its websockets (issue 12 §13: 40 sockets on one shared
    spectators' link chatted 660 lines a second): a cap on the connections an address holds open, and token
    buckets per token and per address for the messages they send. Loopback addresses are not limited (the
    operator's own tools; behind a proxy on the same host, list it in `trusted_proxies`); tokens always are."""

    def __init__(self, settings: Settings, addresses: CreateLimits):
        self.addresses = addresses
        self.max_connections = settings.max_connections_per_address
        self.per_token = Buckets(settings.token_rate_per_s or settings.rate_per_s,
                                 settings.token_burst or settings.rate_burst)
        self.per_address = Buckets(settings.address_rate_per_s or 5 * settings.rate_per_s,
                                   settings.address_burst or 5 * settings.rate_burst)
        self.connections: dict[str, int] = {}

    def address(self, request: web.Request) -> str | None:
        """The client address the limits count, or None for one they leave alone (loopback)."""
        address = self.addresses.client(request)
        parsed = _address(address)
        return None if parsed is not None and parsed.is_loopback else address

    def connect(self, address: str | None) -> web.Response | None:
        """Count a websocket of `address` in, or the refusal (429) when it holds the most it may."""
        if address is None:
            return None
        held = self.connections.get(address, 0)
        if self.max_connections and held >= self.max_connections:
            return refusal(429, "too_many_connections", f"{address} holds {held} connections already, the most "
                           "this server allows one address", retry_after_s=5)
        self.connections[address] = held + 1
        return None

    def disconnect(self, address: str | None) -> None:
        if address is None:
            return
        left = self.connections.get(address, 0) - 1
        if left > 0:
            self.connections[address] = left
        else:
            self.connections.pop(address, None)

    def over(self, token_key: str | None, address: str | None) -> tuple[str, float] | None:
        """None when one more message of this token and address may go on, else what is over its limit and the
        seconds until it is not."""
        wait = self.per_token.take(token_key) if token_key is not None else None
        if wait is not None:
            return "this seat's token (over all its connections)", wait
        wait = self.per_address.take(address) if address is not None else None
        if wait is not None:
            return f"the address {address} (over all its connections)", wait
        return None
