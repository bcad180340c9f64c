"""Filters gpunet.fabric.verify_host_commands, verify_pair_rounds, verify_iperf3_rounds, verify_nccl_jobs,
verify_raw_output, verify_incast_jobs, verify_incast_counters, verify_incast_outputs.

Thin wrappers over gpunet.validate.collect_plan and gpunet.validate.incast_jobs: the verify roles
loop over what these return.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import guarded_filters

try:
    from gpunet.model.plain import to_plain
    from gpunet.validate import collect_plan, incast_jobs
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None


def verify_host_commands(nics: Any) -> list[dict[str, Any]]:
    return collect_plan.host_commands(to_plain(nics or []))


def verify_pair_rounds(
    hostvars: Any,
    play_hosts: list[str],
    host: str,
    tool: str,
    extra_args: Any,
    mode: str = "ring",
    base_port: Any = None,
    gid_indexes: Any = None,
) -> list[dict[str, Any]]:
    nics_by_host = {name: to_plain(hostvars[name].get("gpunet_nics") or []) for name in play_hosts}
    args = list(to_plain(extra_args or []))
    indexes = {str(nic): int(index) for nic, index in to_plain(gid_indexes or {}).items()}
    return collect_plan.pair_rounds(nics_by_host, host, tool, args, mode, _port(base_port), indexes)


def verify_required_gid_indexes(outputs: Any, nics: Any) -> dict[str, int]:
    """NIC -> perftest `-x`, only where perftest's own GID pick is not the inventory address's."""
    plain = to_plain(outputs or {})
    results = plain.get("results", []) if isinstance(plain, dict) else []
    return collect_plan.required_gid_indexes(results, to_plain(nics or []))


def _port(base_port: Any) -> int:
    return collect_plan.PERFTEST_BASE_PORT if base_port in (None, "") else int(base_port)


def verify_iperf3_rounds(
    hostvars: Any, play_hosts: list[str], host: str, port: int = 5201, seconds: int = 5
) -> list[dict[str, Any]]:
    """Each host's iperf3 address: verify_traffic_iperf3_address if set for it, else ansible_host."""
    addresses = {}
    for name in play_hosts:
        own = hostvars[name]
        addresses[name] = str(own.get("verify_traffic_iperf3_address") or own.get("ansible_host") or name)
    return collect_plan.iperf3_rounds(addresses, host, int(port), int(seconds))


def verify_nccl_jobs(
    gpus_by_host: Any, host: str, launcher: str, binary: str, extra_args: Any
) -> list[dict[str, Any]]:
    gpus = {name: int(count) for name, count in to_plain(gpus_by_host).items()}
    return collect_plan.nccl_jobs(gpus, host, launcher, binary, list(to_plain(extra_args or [])))


def verify_raw_output(result: Any, command_line: Any = False) -> str:
    return collect_plan.raw_output(to_plain(result), bool(command_line))


def verify_incast_jobs(plan: Any, host: str, gid_indexes: Any = None) -> dict[str, Any]:
    indexes = {str(nic): int(index) for nic, index in to_plain(gid_indexes or {}).items()}
    return incast_jobs.host_jobs(to_plain(plan), host, indexes)


def verify_incast_counters(phase: str, root: Any = None) -> list[dict[str, Any]]:
    return [incast_jobs.hw_counters_command(str(phase), str(root or incast_jobs.SYSFS_ROOT))]


def verify_incast_outputs(results: Any) -> dict[str, str]:
    return incast_jobs.client_outputs(list(to_plain(results or [])))


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return guarded_filters(
            {
                "verify_host_commands": verify_host_commands,
                "verify_pair_rounds": verify_pair_rounds,
                "verify_iperf3_rounds": verify_iperf3_rounds,
                "verify_nccl_jobs": verify_nccl_jobs,
                "verify_raw_output": verify_raw_output,
                "verify_required_gid_indexes": verify_required_gid_indexes,
                "verify_incast_jobs": verify_incast_jobs,
                "verify_incast_counters": verify_incast_counters,
                "verify_incast_outputs": verify_incast_outputs,
            },
            GPUNET_IMPORT_ERROR,
        )
