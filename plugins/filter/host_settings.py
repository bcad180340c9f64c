"""Filters gpunet.fabric.fabric_settings, nccl_environment, local_port_range, cidrs_by_family, ...

Used by the host roles; thin wrappers over gpunet.hosts.settings, so roles and tests share one implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpunet.hosts import firewall, settings
from gpunet.model.plain import to_plain


def fabric_settings(fabric_value: Any) -> dict[str, Any]:
    return settings.fabric_settings(to_plain(fabric_value))


def nccl_environment(
    fabric_value: Any,
    nics: Any,
    socket_ifname: str = "",
    gid_index: int | str | None = None,
    extra: Any = None,
    port: int = 1,
) -> dict[str, str]:
    return settings.nccl_environment(
        to_plain(fabric_value),
        to_plain(nics or []),
        socket_ifname=str(socket_ifname or ""),
        gid_index=None if gid_index in (None, "") else int(gid_index),
        port=int(port),
        extra=to_plain(extra or {}),
    )


def local_port_range(fabric_value: Any) -> str:
    return settings.local_port_range(to_plain(fabric_value))


def interface_with_address(facts: Any, address: Any) -> str:
    return settings.interface_with_address(to_plain(facts or {}), str(address or ""))


def cidrs_by_family(cidrs: Any) -> dict[str, list[str]]:
    return settings.cidrs_by_family(to_plain(cidrs or []))


def firewall_openings(openings: Any) -> list[dict[str, Any]]:
    return firewall.openings_by_family(to_plain(openings or []))


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "fabric_settings": fabric_settings,
            "nccl_environment": nccl_environment,
            "local_port_range": local_port_range,
            "cidrs_by_family": cidrs_by_family,
            "interface_with_address": interface_with_address,
            "firewall_openings": firewall_openings,
        }
