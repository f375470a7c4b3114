"""Where the replicas are and how to reach them.

A target is `host:port`, a comma-separated list of them, a list, or a DNS name to expand:
`dns:///verdict-headless:50051` (gRPC's name syntax; `dns:verdict-headless:50051` too) resolves to
every address the name has — a Kubernetes headless Service answers with one address per ready pod —
and each address becomes a replica. Names are resolved again every `refresh_s` seconds, so replicas
that scale up or down are picked up between `score()` calls; channels to addresses that stay are kept.

Balancing and failover are the batch plan's (`_plan.py`): chunks go round-robin over the replicas
of the call, and a chunk whose replica answers UNAVAILABLE, or is lost mid-call, is sent whole to
the next one. A unary Score call returns all of its results or none, so a chunk is never half
scored on a lost replica, and each sample keeps exactly one result.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

import grpc

Targets = Union[str, Sequence[str]]
# getaddrinfo's shape: (host, port) → the addresses, as socket.getaddrinfo returns them.
Resolver = Callable[[str, int], Sequence[tuple[Any, ...]]]

DNS_PREFIXES = ("dns:///", "dns:")


def split_targets(targets: Targets) -> list[str]:
    """"a:1,b:2" or a list → the entries, stripped, empty ones dropped."""
    items = targets.split(",") if isinstance(targets, str) else list(targets)
    out = [t.strip() for t in items if t.strip()]
    if not out:
        raise ValueError("at least one target is required")
    return out


def _host_port(name: str, target: str) -> tuple[str, int]:
    host, sep, port = name.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"target {target!r}: expected dns:///HOST:PORT")
    return host.strip("[]"), int(port)


def _dns_name(target: str) -> Optional[str]:
    """The HOST:PORT of a `dns:` target; None for a plain address. `dns://AUTHORITY/` is not supported."""
    if target.startswith("dns:///"):
        return target[len("dns:///"):]
    if target.startswith("dns://"):
        raise ValueError(f"target {target!r}: a DNS authority is not supported; use dns:///HOST:PORT")
    if target.startswith("dns:"):
        return target[len("dns:"):]
    return None


def _address(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _system_resolver(host: str, port: int) -> Sequence[tuple[Any, ...]]:
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def resolve_targets(targets: Targets, resolver: Resolver = _system_resolver) -> list[str]:
    """The replicas: plain entries as given, `dns:` names expanded to every address (sorted, so every
    client orders them alike), duplicates dropped. A name that does not resolve is an error naming it."""
    out: list[str] = []
    for target in split_targets(targets):
        name = _dns_name(target)
        if name is None:
            found = [target]
        else:
            host, port = _host_port(name, target)
            try:
                infos = resolver(host, port)
            except OSError as error:
                raise ValueError(f"target {target!r}: cannot resolve {host!r} ({error})") from error
            found = sorted({_address(info[4][0], port) for info in infos})
            if not found:
                raise ValueError(f"target {target!r}: {host!r} has no addresses")
        for address in found:
            if address not in out:
                out.append(address)
    return out


def has_dns(targets: Targets) -> bool:
    return any(_dns_name(t) is not None for t in split_targets(targets))


@dataclass(frozen=True)
class Tls:
    """TLS for the channels: the CA that signed the servers' certificates, and an optional client
    certificate (PEM bytes) for servers that require one (`verdict serve --tls-client-ca`)."""

    root_certificates: Optional[bytes] = None
    certificate_chain: Optional[bytes] = None
    private_key: Optional[bytes] = None

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(self.root_certificates, self.private_key, self.certificate_chain)


class _BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    """Adds `authorization: Bearer <token>` to every call (the server's --auth-token-file)."""

    def __init__(self, token: str):
        self._header = ("authorization", f"Bearer {token}")

    def _with_token(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = list(details.metadata or []) + [self._header]
        return _CallDetails(details.method, details.timeout, metadata, details.credentials, details.wait_for_ready, details.compression)

    def intercept_unary_unary(self, continuation: Any, client_call_details: grpc.ClientCallDetails, request: Any) -> Any:
        return continuation(self._with_token(client_call_details), request)

    def intercept_unary_stream(self, continuation: Any, client_call_details: grpc.ClientCallDetails, request: Any) -> Any:
        return continuation(self._with_token(client_call_details), request)


class _CallDetails(grpc.ClientCallDetails):  # type: ignore[misc]
    def __init__(self, method: str, timeout: Optional[float], metadata: Any, credentials: Any, wait_for_ready: Any, compression: Any):
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.compression = compression


def open_channel(target: str, options: Sequence[tuple[str, Any]], token: Optional[str] = None, tls: Optional[Tls] = None) -> grpc.Channel:
    """A channel to one replica, with TLS and the bearer token when given."""
    channel = grpc.secure_channel(target, tls.credentials(), options=options) if tls else grpc.insecure_channel(target, options=options)
    return grpc.intercept_channel(channel, _BearerToken(token)) if token else channel


def aio_metadata(token: Optional[str]) -> Optional[tuple[tuple[str, str], ...]]:
    """Call metadata carrying the token, for grpc.aio calls."""
    return (("authorization", f"Bearer {token}"),) if token else None


class ReplicaSet:
    """The replicas behind `targets` and one (channel, stub) per replica, re-resolving DNS names every
    `refresh_s`. `make_stub(address)` opens one; `close_channel` closes one no longer listed.

    `current()` gives the replica list and stubs for one `score()` call, consistent for that call even
    if a refresh happens meanwhile; channels to addresses no longer listed are closed at the next
    refresh (a call still on one finishes or fails over like any other).
    """

    def __init__(
        self,
        targets: Targets,
        make_stub: Callable[[str], tuple[Any, Any]],
        close_channel: Callable[[Any], object],
        refresh_s: float = 30.0,
        resolver: Resolver = _system_resolver,
    ):
        self._targets = targets
        self._make = make_stub
        self._close = close_channel
        self._refresh_s = refresh_s
        self._resolver = resolver
        self._dynamic = has_dns(targets)
        self._lock = threading.Lock()
        self._open: dict[str, tuple[Any, Any]] = {}
        self._addresses: list[str] = []
        self._resolved_at = 0.0
        self._resolve()

    def _resolve(self) -> None:
        addresses = resolve_targets(self._targets, self._resolver)
        for address in addresses:
            if address not in self._open:
                self._open[address] = self._make(address)
        for address in [a for a in self._open if a not in addresses]:
            channel, _stub = self._open.pop(address)
            self._close(channel)
        self._addresses = addresses
        self._resolved_at = time.monotonic()

    def current(self) -> tuple[list[str], list[Any]]:
        with self._lock:
            if self._dynamic and time.monotonic() - self._resolved_at >= self._refresh_s:
                try:
                    self._resolve()
                except ValueError:
                    # DNS hiccup: keep the replicas known so far rather than fail the batch.
                    self._resolved_at = time.monotonic()
            addresses = list(self._addresses)
            return addresses, [self._open[a][1] for a in addresses]

    @property
    def addresses(self) -> list[str]:
        return list(self._addresses)

    def close(self) -> list[Any]:
        """Forgets every channel and returns them, for the caller to close (grpc.aio closes with await)."""
        with self._lock:
            channels = [channel for channel, _stub in self._open.values()]
            self._open.clear()
            return channels
