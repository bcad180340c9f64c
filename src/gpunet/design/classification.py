"""DSCP classification: RoCE and CNP marks to their traffic classes, every other DSCP to class 0."""

from __future__ import annotations

from typing import Any

from gpunet.design.units import dscp_bits
from gpunet.model.fabric import Qos

DSCP_VALUES = range(64)
DEFAULT_TRAFFIC_CLASS = 0


# EOS takes several DSCP values per `qos map dscp ... to traffic-class` line; 8 keeps lines short.
DSCP_GROUP_SIZE = 8


def design_classification(qos: Qos) -> dict[str, Any]:
    marks = {qos.roce_dscp: qos.lossless_priority, qos.cnp_dscp: qos.cnp_priority}
    queue_names = {queue.traffic_class: queue.name for queue in qos.queues}
    # The complete map: stock maps send other DSCPs (e.g. 24-31) to the lossless class, and
    # SONiC's AZURE map sends DSCP 26 to TC 1, so every OS gets all 64 values explicitly.
    dscp_to_tc = [
        {"dscp": dscp, "traffic_class": marks.get(dscp, DEFAULT_TRAFFIC_CLASS)} for dscp in DSCP_VALUES
    ]
    return {
        "trust": qos.trust,
        "roce": _mark(qos.roce_dscp, qos.lossless_priority, queue_names),
        "cnp": _mark(qos.cnp_dscp, qos.cnp_priority, queue_names),
        "dscp_to_tc": dscp_to_tc,
        "dscp_groups": _groups(dscp_to_tc),
    }


def _mark(dscp: int, traffic_class: int, queue_names: dict[int, str]) -> dict[str, Any]:
    return {
        "dscp": dscp,
        "dscp_bits": dscp_bits(dscp),
        "traffic_class": traffic_class,
        "queue": queue_names[traffic_class],
    }


def _groups(dscp_to_tc: list[dict[str, int]]) -> list[dict[str, Any]]:
    """DSCP values by traffic class, in runs of at most DSCP_GROUP_SIZE."""
    by_class: dict[int, list[int]] = {}
    for entry in dscp_to_tc:
        by_class.setdefault(entry["traffic_class"], []).append(entry["dscp"])
    groups = []
    for traffic_class in sorted(by_class):
        values = by_class[traffic_class]
        for start in range(0, len(values), DSCP_GROUP_SIZE):
            groups.append({"traffic_class": traffic_class, "dscps": values[start : start + DSCP_GROUP_SIZE]})
    return groups
