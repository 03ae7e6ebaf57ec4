"""Which addresses the service may send to when a ``codecov.yml`` names the URL (Slack and webhook
notifiers): a user must not make the service reach its own network (docs/deployment.md, "Limits and
abuse").

A URL's host is resolved and **every** address it has is checked: one that is not global (loopback,
private, link-local, carrier-grade NAT, multicast, reserved, unspecified; an IPv4 address inside IPv6
too) is refused unless ``COVERAGE_NOTIFY_ALLOWED_NETWORKS`` lists the host or a network holding the
address. The connection is then made to the address that was checked, never to a second lookup of the
name (which a rebinding DNS server could answer with another address); TLS still checks the host's
name.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Union

from . import ErrorKind, ProviderError

_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.?)*")

Network = Union[ipaddress.IPv4Network, ipaddress.IPv6Network]
Address = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]


class AddressRefused(ProviderError):
    """A URL whose host is, or resolves to, an address the service may not reach: the configuration
    (the YAML's URL, or the operator's allowed networks) must change first."""

    @property
    def kind(self) -> ErrorKind:
        return "broken"


@dataclass(frozen=True)
class AllowedNetworks:
    """What ``COVERAGE_NOTIFY_ALLOWED_NETWORKS`` lets through beside the global addresses: host names
    (any address they resolve to) and networks."""

    hosts: frozenset[str]
    networks: tuple[Network, ...]

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AllowedNetworks:
        """From the config's list (``"hooks.internal"``, ``"10.1.0.0/16"``, ``"127.0.0.1"``); a
        ``ValueError`` naming an entry that is neither a host name nor a network."""
        if isinstance(entries, str):
            raise ValueError("COVERAGE_NOTIFY_ALLOWED_NETWORKS must be a list of host names and networks")
        hosts, networks = set(), []
        for entry in entries:
            if not isinstance(entry, str) or not entry.strip():
                raise ValueError(f"COVERAGE_NOTIFY_ALLOWED_NETWORKS: {entry!r} is not a host name or a network")
            try:
                networks.append(ipaddress.ip_network(entry.strip(), strict=False))
            except ValueError:
                if not _HOST.fullmatch(entry.strip()):
                    raise ValueError(
                        f"COVERAGE_NOTIFY_ALLOWED_NETWORKS: {entry!r} is not a host name or a network"
                    ) from None
                hosts.add(entry.strip().rstrip(".").lower())
        return cls(frozenset(hosts), tuple(networks))

    def admits(self, host: str, address: Address) -> bool:
        if host.rstrip(".").lower() in self.hosts:
            return True
        return any(address.version == network.version and address in network for network in self.networks)


def _plain(address: Address) -> Address:
    """An IPv4 address written inside IPv6 (``::ffff:127.0.0.1``), as the IPv4 address it reaches."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def checked_address(host: str, port: int, allowed: AllowedNetworks) -> str:
    """The address to connect to for ``host``: every address it resolves to checked (an
    :class:`AddressRefused` naming the first one refused), then the first of them."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise ProviderError(f"{host} could not be resolved ({type(error).__name__})") from None
    addresses = list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in found))
    if not addresses:
        raise ProviderError(f"{host} could not be resolved (no address)")
    for text in addresses:
        address = _plain(ipaddress.ip_address(text))
        if (not address.is_global or address.is_multicast) and not allowed.admits(host, address):
            raise AddressRefused(
                f"{host} is {address}, an address of a private, loopback or reserved network: not sent "
                "(COVERAGE_NOTIFY_ALLOWED_NETWORKS lets it through)"
            )
    return addresses[0]
