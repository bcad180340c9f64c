"""NVUE per-interface counters the incast stage reads on a Cumulus Linux switch, as JSON.

Each capture holds one NVUE command's answer for every port of the switch on the incast's path
(gpunet.collect.switch_show writes it; a show command takes one interface):

    {"command": "nv show interface <port> ... -o json",
     "ports": {"swp1": <the document NVUE printed for swp1>, ...},
     "refused": {"swp9": "<first line of a non-JSON answer>", ...}}

The documents are shaped as NVIDIA's NVUE OpenAPI spec for Cumulus Linux 5.3.0 says (`-o json`
prints the GET response of the path whose words the command spells):

- `/interface/{interface-id}/qos/counters/pfc-stats`: an object keyed by switch priority ("0".."7",
  schema-qos-if-qos-sp-id) of {rx-pause-frames, rx-pause-duration, tx-pause-frames,
  tx-pause-duration}, integers (schema-qos-if-qos-pfc-stats-show).
- `/interface/{interface-id}/qos/counters/egress-queue-stats`: an object keyed by traffic class
  ("0".."7", schema-qos-if-qos-tc-id) of {tx-frames, tx-bytes, red-dropped-packets,
  tx-uc-buffer-discards, wred-discards}, integers (schema-qos-if-qos-egr-queue-stats-show).
- `/interface/{interface-id}/qos/roce/counters`: {rx-stats: {rx-pfc-stats, rx-roce-stats,
  rx-non-roce-stats}, tx-stats: {tx-pfc-stats, tx-roce-stats, tx-non-roce-stats, tx-cnp-stats,
  tx-ecn-stats}}, each an object of integers; tx-ecn-stats has `ecn-marked-packets`
  (cue-show-schema-roce-show-if-roce-stats and the schemas under it).

A wrong shape (not JSON, a document that is no object, a key that is no priority or traffic
class, a counter that is no integer) is an error naming the port and the path to the value. The
spec lists every field as optional: a field the checks need and the switch left out is reported
by the check, not here. Fields the spec does not list (a later release's) are kept and not read.
"""

from __future__ import annotations

import json
from typing import Any

from gpunet.validate.parsers.base import ParseError

CLASSES = tuple(str(n) for n in range(8))  # schema-qos-sp-tc-pg-def: an integer 0..7, as a string
PFC_FIELDS = ("rx-pause-frames", "rx-pause-duration", "tx-pause-frames", "tx-pause-duration")
QUEUE_FIELDS = ("tx-frames", "tx-bytes", "red-dropped-packets", "tx-uc-buffer-discards", "wred-discards")
# The drop counters of egress-queue-stats, each per traffic class (incast_lossless_drops sums
# them: each must stay +0).
QUEUE_DROP_FIELDS = ("red-dropped-packets", "tx-uc-buffer-discards", "wred-discards")
ROCE_GROUPS = {
    "rx-stats": ("rx-pfc-stats", "rx-roce-stats", "rx-non-roce-stats"),
    "tx-stats": ("tx-pfc-stats", "tx-roce-stats", "tx-non-roce-stats", "tx-cnp-stats", "tx-ecn-stats"),
}


def _capture(text: str, what: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The capture's ports (port -> document) and refusals; ParseError where it is not one."""
    try:
        capture = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ParseError(f"not JSON ({type(error).__name__}): not a gpunet capture of `{what}`") from None
    if not isinstance(capture, dict) or not isinstance(capture.get("ports"), dict):
        raise ParseError(f"expected an object with a 'ports' object: not a gpunet capture of `{what}`")
    refused = capture.get("refused", {})
    if not isinstance(refused, dict) or not all(isinstance(v, str) for v in refused.values()):
        raise ParseError("'refused' is not an object of port -> the switch's answer")
    for port, document in capture["ports"].items():
        if not isinstance(document, dict):
            raise ParseError(f"ports.{port}: expected an object, got {type(document).__name__}")
    return capture["ports"], dict(refused)


def _integers(port: str, where: str, node: Any, fields: tuple[str, ...]) -> dict[str, int]:
    """The listed integer fields of `node` (those present); ParseError naming the path otherwise."""
    if not isinstance(node, dict):
        raise ParseError(f"ports.{port}.{where}: expected an object, got {type(node).__name__}")
    values = {}
    for name in fields:
        if name not in node:
            continue
        value = node[name]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ParseError(f"ports.{port}.{where}.{name}: expected a count, got {value!r}")
        values[name] = value
    return values


def _per_class(port: str, document: dict[str, Any], fields: tuple[str, ...]) -> dict[int, dict[str, int]]:
    rows = {}
    for key, node in document.items():
        if key not in CLASSES:
            raise ParseError(f"ports.{port}: key {key!r} is no priority or traffic class (0..7)")
        rows[int(key)] = _integers(port, key, node, fields)
    return rows


def parse_nv_pfc_stats_json(text: str) -> dict[str, Any]:
    """{"interfaces": {port: {"priorities": {prio: {rx_pause, tx_pause, <field>: n}}}}, "refused": {...}}."""
    ports, refused = _capture(text, "nv show interface <port> qos counters pfc-stats -o json")
    interfaces = {}
    for port, document in ports.items():
        priorities = {}
        for prio, row in _per_class(port, document, PFC_FIELDS).items():
            priorities[prio] = {
                "rx_pause": row.get("rx-pause-frames"),
                "tx_pause": row.get("tx-pause-frames"),
                **row,
            }
        interfaces[port] = {"priorities": priorities}
    return {"interfaces": interfaces, "refused": refused}


def parse_nv_egress_queue_stats_json(text: str) -> dict[str, Any]:
    """{"interfaces": {port: {"queues": {tc: {<field>: n}}}}, "refused": {...}}."""
    ports, refused = _capture(text, "nv show interface <port> qos counters egress-queue-stats -o json")
    interfaces = {port: {"queues": _per_class(port, doc, QUEUE_FIELDS)} for port, doc in ports.items()}
    return {"interfaces": interfaces, "refused": refused}


def parse_nv_roce_counters_json(text: str) -> dict[str, Any]:
    """{"interfaces": {port: {"ecn_marked": n | None, "rx-stats": {group: {field: n}}, "tx-stats": ...}},
    "refused": {...}}; `ecn_marked` is tx-stats.tx-ecn-stats.ecn-marked-packets (None: not printed)."""
    ports, refused = _capture(text, "nv show interface <port> qos roce counters -o json")
    interfaces = {}
    for port, document in ports.items():
        entry: dict[str, Any] = {}
        for side, groups in ROCE_GROUPS.items():
            if side not in document:
                continue
            node = document[side]
            if not isinstance(node, dict):
                raise ParseError(f"ports.{port}.{side}: expected an object, got {type(node).__name__}")
            entry[side] = {}
            for group in groups:
                if group in node:
                    fields = tuple(k for k in node[group]) if isinstance(node[group], dict) else ()
                    entry[side][group] = _integers(port, f"{side}.{group}", node[group], fields)
        entry["ecn_marked"] = entry.get("tx-stats", {}).get("tx-ecn-stats", {}).get("ecn-marked-packets")
        interfaces[port] = entry
    return {"interfaces": interfaces, "refused": refused}


PARSERS = {
    "cumulus-nv-show-interface-pfc-stats": parse_nv_pfc_stats_json,
    "cumulus-nv-show-interface-egress-queue-stats": parse_nv_egress_queue_stats_json,
    "cumulus-nv-show-interface-roce-counters": parse_nv_roce_counters_json,
}
