"""Parsers for raw tool output: one function per tool, text in, JSON-ready dict out.

`PARSERS` maps the TOOL names of `gpunet parse TOOL FILE` (and of the artifacts folder's
`<tool>.txt` files) to their parse function. Every parser raises ParseError with a one-line
reason for text it cannot read, and ignores stray lines it does not know. `parse` cleans the text
first (parsers.clean) and turns any exception of a parser into a ParseError.

A few parsers of large captures also return only the part a check reads (`SUBSETS`): the values
the whole parse holds for that part, refusing what would make that part wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpunet.validate.parsers.base import ParseError
from gpunet.validate.parsers.chronyc import parse_chronyc_tracking
from gpunet.validate.parsers.clean import clean_text, refuse_doubled_capture
from gpunet.validate.parsers.cumulus import parse_nv_show_qos_roce
from gpunet.validate.parsers.cumulus_incast import PARSERS as CUMULUS_INCAST_PARSERS
from gpunet.validate.parsers.dcb import parse_dcb_app_show, parse_dcb_pfc_show
from gpunet.validate.parsers.host_files import (
    parse_lsmod,
    parse_lspci_acs,
    parse_nccl_conf,
    parse_nft_ruleset,
    parse_traffic_class,
)
from gpunet.validate.parsers.ibstat import parse_ibstat
from gpunet.validate.parsers.ibv_devinfo import parse_ibv_devinfo
from gpunet.validate.parsers.ip_link import parse_ip_link_json
from gpunet.validate.parsers.iperf3 import parse_iperf3
from gpunet.validate.parsers.lldp_switch import (
    parse_eos_lldp_neighbors_detail_json,
    parse_junos_lldp_neighbors_json,
    parse_nxos_lldp_neighbors_detail_json,
    parse_sonic_show_lldp_table,
)
from gpunet.validate.parsers.lldpctl import parse_lldpctl_json
from gpunet.validate.parsers.mlnx_qos import parse_mlnx_qos
from gpunet.validate.parsers.mstconfig import parse_mstconfig_query
from gpunet.validate.parsers.nccl_tests import parse_nccl_tests
from gpunet.validate.parsers.nvidia_smi import parse_nvidia_smi_query, parse_nvidia_smi_topo
from gpunet.validate.parsers.perftest import parse_perftest
from gpunet.validate.parsers.queue_counters import (
    parse_eos_counters_queue,
    parse_eos_ecn_counters_queue,
    parse_junos_interfaces_queue,
)
from gpunet.validate.parsers.rdma_hw_counters import parse_rdma_hw_counters
from gpunet.validate.parsers.roce_gids import parse_roce_gids
from gpunet.validate.parsers.sonic import (
    NAMESPACED_TOOLS,
    merge_namespaces,
    namespace_sections,
    parse_show_ecn,
    parse_show_pfc_counters,
    parse_show_pfc_priority,
    parse_show_queue_counters,
)
from gpunet.validate.parsers.sonic_pfcwd import parse_show_pfcwd_stats
from gpunet.validate.parsers.sonic_wred import parse_show_queue_wredcounters
from gpunet.validate.parsers.switch_pfc import (
    parse_cumulus_pfc_stats,
    parse_eos_pfc_counters_detail_json,
    parse_eos_pfc_watchdog_json,
    parse_eos_show_pfc,
    parse_eos_show_pfc_counters,
    parse_junos_show_cos_congestion_notification,
    parse_junos_show_cos_interface,
    parse_junos_show_interfaces_extensive,
    parse_nxos_show_interface_pfc,
)

Parser = Callable[[str], dict[str, Any]]

PARSERS: dict[str, Parser] = {
    "ibstat": parse_ibstat,
    "ibv_devinfo": parse_ibv_devinfo,
    "perftest": parse_perftest,
    "nccl-tests": parse_nccl_tests,
    "nvidia-smi-topo": parse_nvidia_smi_topo,
    "nvidia-smi-q": parse_nvidia_smi_query,
    "chronyc-tracking": parse_chronyc_tracking,
    "mlnx_qos": parse_mlnx_qos,
    "dcb-pfc-show": parse_dcb_pfc_show,
    "dcb-app-show": parse_dcb_app_show,
    "iperf3": parse_iperf3,
    "nccl-conf": parse_nccl_conf,
    "traffic-class": parse_traffic_class,
    "lspci-acs": parse_lspci_acs,
    "lsmod": parse_lsmod,
    "nft-ruleset": parse_nft_ruleset,
    "roce-gids": parse_roce_gids,
    # mlx5 hw_counters (`grep -H . /sys/class/infiniband/*/ports/*/hw_counters/*`), read by the incast checks.
    "rdma-hw-counters": parse_rdma_hw_counters,
    # LLDP neighbours: hosts, SONiC and Cumulus run lldpd (read by `gpunet cabling`).
    "lldpctl-json": parse_lldpctl_json,
    # mstconfig/mlxconfig `query` output; `mstconfig-lldp.<nic>` is verify_host's capture of one
    # NIC's LLDP_NB_* parameters (collect_plan.MSTCONFIG_LLDP_SCRIPT), read by the cabling check.
    "mstconfig-query": parse_mstconfig_query,
    "mstconfig-lldp": parse_mstconfig_query,
    # iproute2's `ip -j link show`; `ip-link-json.<netdev>` is verify_host's capture of one RDMA
    # netdev (its MTU, read by the link_qos check).
    "ip-link-json": parse_ip_link_json,
    # The switch OSes' own LLDP commands, reduced to lldpctl-json's neighbour records.
    "eos-show-lldp-neighbors-detail-json": parse_eos_lldp_neighbors_detail_json,
    "nxos-show-lldp-neighbors-detail-json": parse_nxos_lldp_neighbors_detail_json,
    "junos-show-lldp-neighbors-json": parse_junos_lldp_neighbors_json,
    "sonic-show-lldp-table": parse_sonic_show_lldp_table,
    # Switch show commands, one per OS command.
    "sonic-show-pfc-counters": parse_show_pfc_counters,
    "sonic-show-pfc-priority": parse_show_pfc_priority,
    "sonic-show-queue-counters": parse_show_queue_counters,
    "sonic-show-ecn": parse_show_ecn,
    "sonic-show-queue-wredcounters": parse_show_queue_wredcounters,
    "sonic-show-pfcwd-stats": parse_show_pfcwd_stats,
    "cumulus-nv-show-qos-roce": parse_nv_show_qos_roce,
    "cumulus-nv-show-pfc-stats": parse_cumulus_pfc_stats,
    # NVUE per-interface counters as JSON, one capture of every path port (the incast stage).
    **CUMULUS_INCAST_PARSERS,
    "nxos-show-interface-pfc": parse_nxos_show_interface_pfc,
    "eos-show-pfc-counters": parse_eos_show_pfc_counters,
    "eos-show-pfc": parse_eos_show_pfc,
    "eos-show-pfc-watchdog-json": parse_eos_pfc_watchdog_json,
    "eos-show-pfc-counters-detail-json": parse_eos_pfc_counters_detail_json,
    "junos-show-interfaces-extensive": parse_junos_show_interfaces_extensive,
    "junos-show-cos-interface": parse_junos_show_cos_interface,
    "junos-show-cos-congestion-notification": parse_junos_show_cos_congestion_notification,
    "eos-show-interfaces-counters-queue": parse_eos_counters_queue,
    "eos-show-qos-ecn-counters-queue": parse_eos_ecn_counters_queue,
    "junos-show-interfaces-queue": parse_junos_interfaces_queue,
}


# Tools whose parser takes a subset, and what it names. SONiC's queue table has a row per port and
# queue; the drop check reads the lossless queue's (a table without its header, or a port listed
# twice for that queue, is still refused).
SUBSETS: dict[str, str] = {"sonic-show-queue-counters": "a queue's rows (UC3)"}


def parse(tool: str, text: str, subset: str | None = None) -> dict[str, Any]:
    """Parse `text` as output of `tool`; ParseError for unknown tools and unreadable text.
    `subset` (tools of SUBSETS only): only that part of the parse."""
    try:
        parser = PARSERS[tool]
    except KeyError:
        raise ParseError(f"unknown tool {tool!r} (expected one of: {', '.join(sorted(PARSERS))})") from None
    if subset is not None and tool not in SUBSETS:
        raise ValueError(f"the {tool} parser reads no subset")  # a caller's bug, not the text's
    text = clean_text(text)
    if tool in NAMESPACED_TOOLS and (sections := _sections(text)) is not None:
        # A multi-ASIC switch's capture: each namespace's answer read on its own, then merged.
        parts = []
        for namespace, section in sections:
            try:
                parts.append((namespace, parse(tool, section, subset)))
            except ParseError as error:
                raise ParseError(f"namespace {namespace}: {error}") from None
        return merge_namespaces(tool, parts)
    try:
        refuse_doubled_capture(text)
        return parser(text) if subset is None else parser(text, subset)  # type: ignore[call-arg]
    except ParseError:
        raise
    except Exception as error:
        # A parser bug on odd input must still end as a one-line reason (exit 3), not a traceback.
        raise ParseError(f"cannot parse {tool} output: {type(error).__name__}: {error}") from None


__all__ = ["PARSERS", "SUBSETS", "ParseError", "parse"]


def _sections(text: str) -> list[tuple[str, str]] | None:
    try:
        return namespace_sections(text)
    except ParseError as error:
        raise ParseError(f"per-namespace capture: {error}") from None
