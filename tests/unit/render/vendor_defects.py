"""The defects issue 11 found in rendered configs, each as a check of one switch's rendered text.

A check returns the problems it finds (empty: fixed). test_vendor_defects runs every check on what
`gpunet render -i inventories/prod` produces; each check finds its defect in the output of
cee4d12 (before the fix), which is how it was shown to be able to fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

Check = Callable[[str, str], list[str]]  # (config, summary) -> problems


def nxos_no_restore_multiplier(config: str, summary: str) -> list[str]:
    # No Cisco source has `watch-dog restore-multiplier` (shared/reference/roce.md, Corrections).
    return ["renders watch-dog restore-multiplier"] if "restore-multiplier" in config else []


def nxos_every_egress_class(config: str, summary: str) -> list[str]:
    classes = set(re.findall(r"^  class type queuing (c-out-8q-q\S+)$", config, re.MULTILINE))
    expected = {"c-out-8q-q-default"} | {f"c-out-8q-q{n}" for n in range(1, 8)}
    return [f"egress classes missing: {sorted(expected - classes)}"] if classes != expected else []


def _eos_queue_check(keyword: str, other: str) -> Check:
    def check(config: str, summary: str) -> list[str]:
        problems = []
        if not re.search(rf"^   {keyword} \d$", config, re.MULTILINE):
            problems.append(f"no `{keyword}` queues")
        if re.search(rf"^   {other} \d$", config, re.MULTILINE):
            problems.append(f"`{other}` queues on this ASIC family")
        return problems

    check.__name__ = f"eos_{keyword.replace('-', '_')}"
    return check


eos_strata_uc_tx_queue = _eos_queue_check("uc-tx-queue", "tx-queue")
eos_sand_tx_queue = _eos_queue_check("tx-queue", "uc-tx-queue")


def eos_ecn_count(config: str, summary: str) -> list[str]:
    return [] if "      random-detect ecn count\n" in config else ["no `random-detect ecn count`"]


def cumulus_scheduler_all_classes(config: str, summary: str) -> list[str]:
    # Issue 11 asked for an explicit scheduler; issue 26: only classes in use, DWRR weights 1-100 (0 is
    # not an idle class), and every switch priority mapped to a scheduled class.
    modes = dict(re.findall(r"egress-scheduler default-global traffic-class (\d) mode (\w+)", config))
    shares = re.findall(r"egress-scheduler default-global traffic-class (\d) bw-percent (\d+)", config)
    mapping = dict(
        re.findall(r"egress-queue-mapping default-global switch-priority (\d) traffic-class (\d)", config)
    )
    problems = []
    if not modes:
        problems.append("no egress scheduler entries")
    if sorted(mapping) != [str(sp) for sp in range(8)]:
        problems.append(f"switch priorities mapped: {sorted(mapping)}, not all eight")
    unscheduled = sorted(set(mapping.values()) - set(modes))
    if unscheduled:
        problems.append(f"traffic classes {unscheduled} carry switch priorities but have no scheduler entry")
    zero = [tc for tc, share in shares if int(share) == 0]
    if zero:
        problems.append(f"DWRR bw-percent 0 on traffic classes {zero}")
    total = sum(int(share) for _, share in shares)
    if total > 100:
        problems.append(f"DWRR shares total {total} %")
    return problems


def cumulus_lossless_pool_before_pfc(config: str, summary: str) -> list[str]:
    lines = config.splitlines()
    pool = [i for i, line in enumerate(lines) if line.startswith("nv set qos traffic-pool default-lossless")]
    pfc = [i for i, line in enumerate(lines) if line.startswith("nv set qos pfc ")]
    if not pool:
        return ["no lossless traffic pool"]
    return ["PFC before the lossless traffic pool"] if pfc and min(pfc) < max(pool) else []


def cumulus_no_hand_set_headroom(config: str, summary: str) -> list[str]:
    found = re.findall(r" (xoff-threshold|xon-threshold|port-buffer) \d+", config)
    return [f"hand-set {name}" for name in sorted(set(found))]


def cumulus_watchdog_timers(config: str, summary: str) -> list[str]:
    needed = ("nv set qos pfc-watchdog polling-interval ", "nv set qos pfc-watchdog robustness ")
    return [f"no `{line.strip()}`" for line in needed if line not in config]


def cumulus_summary_says_tc0_ecn(config: str, summary: str) -> list[str]:
    return [] if "traffic class 0 is ECN-marked" in summary else ["summary hides the stock TC0 ECN marking"]


def _sonic(config: str) -> dict:
    return json.loads(config)


def sonic_mellanox_size_is_xon_plus_xoff(config: str, summary: str) -> list[str]:
    # SN5600 pg_profile_lookup.ini: xon is the pipeline latency 19456 B (not 2 x MTU), size = xon + xoff.
    return [
        f"{name}: not the Spectrum form (xon 19456, size = xon + xoff, no xon_offset)"
        for name, p in _sonic(config)["BUFFER_PROFILE"].items()
        if p["xon"] != "19456" or int(p["size"]) != int(p["xon"]) + int(p["xoff"]) or "xon_offset" in p
    ]


def sonic_broadcom_reserved_size_and_xon_offset(config: str, summary: str) -> list[str]:
    # Dell Z9864F pg_profile_lookup.ini: size 18796 (reserved), xon_offset 3556.
    return [
        f"{name}: not the Broadcom form (size 18796, xon_offset 3556)"
        for name, p in _sonic(config)["BUFFER_PROFILE"].items()
        if p.get("size") != "18796" or p.get("xon_offset") != "3556"
    ]


def sonic_dynamic_lossless_pgs_on_null(config: str, summary: str) -> list[str]:
    # Issue 26: the SN5600's SONiC image runs the dynamic buffer model (sonic-buildimage
    # platform/mellanox/rules.mk SONIC_BUFFER_MODEL=dynamic): lossless PGs on profile NULL, no static
    # headroom profiles, and the real cable length (buffermgrd computes headroom from it).
    document = _sonic(config)
    problems = [f"static BUFFER_PROFILE {name}" for name in document.get("BUFFER_PROFILE", {})]
    problems += [
        f"{key}: {fields}" for key, fields in document["BUFFER_PG"].items() if fields != {"profile": "NULL"}
    ]
    return problems


def sonic_profile_names_not_buffermgrd(config: str, summary: str) -> list[str]:
    names = [name for name in _sonic(config)["BUFFER_PROFILE"] if name.startswith("pg_lossless_")]
    return [f"buffermgrd's profile name {name}" for name in names]


def sonic_buffer_queue_per_lossless_port(config: str, summary: str) -> list[str]:
    document = _sonic(config)
    lossless = {key.split("|")[0] for key in document["BUFFER_PG"]}
    queued = {key.split("|")[0] for key in document.get("BUFFER_QUEUE", {})}
    return (
        []
        if lossless and lossless == queued
        else [f"BUFFER_QUEUE ports {sorted(queued)} != {sorted(lossless)}"]
    )


def sonic_no_overlap_with_stock_3_4(config: str, summary: str) -> list[str]:
    # The stock config holds BUFFER_PG|<port>|3-4 and BUFFER_QUEUE|<port>|3-4: a |3 entry beside it
    # overlaps. BUFFER_PG takes buffermgrd's own key (|3 for pfc_enable "3", issue 26), so there the
    # summary must say the push removes the stock entry; BUFFER_QUEUE keeps the stock key.
    document = _sonic(config)
    queues = list(document.get("BUFFER_QUEUE", {}))
    problems = [f"{key} overlaps the stock |3-4 entry" for key in queues if key.split("|")[1] in ("3", "4")]
    if "stock BUFFER_PG |3-4 entry overlaps it and must be removed by the push" not in summary:
        problems.append("the summary does not say the stock BUFFER_PG |3-4 entry must be removed")
    return problems


def junos_classifiers_under_unit(config: str, summary: str) -> list[str]:
    wrong = re.findall(r"^set class-of-service interfaces (\S+) classifiers ", config, re.MULTILINE)
    return [f"classifier on the physical interface {name}" for name in wrong]


def junos_pfc_mru(config: str, summary: str) -> list[str]:
    return (
        []
        if re.search(r"input dscp code-point [01]{6} pfc mru \d+$", config, re.MULTILINE)
        else ["no pfc mru"]
    )


def junos_fill_levels_of_the_model_buffer(config: str, summary: str) -> list[str]:
    # QFX5240: 165 MB (Juniper, Understanding CoS Buffer Configuration, Table 1). 150 KB and 1500 KB
    # are 0.09 % and 0.93 %, not 1 and 9 of an invented 16 MiB; issue 26: Junos OS Evolved takes the
    # decimal (decimal64, 9 digits), so not the whole-percent 1 and 2 either (1.65 MB / 3.3 MB).
    levels = re.findall(r"interpolate fill-level \[ (\S+) (\S+) \]", config)
    return [] if levels == [("0.093091", "0.930909")] else [f"fill levels {levels}"]


def junos_evo_speed_on_interface(config: str, summary: str) -> list[str]:
    return (
        []
        if re.search(r"^set interfaces et-\S+ speed \d+g$", config, re.MULTILINE)
        else ["no interface speed"]
    )


# (switch of inventories/prod, check)
PROD_CHECKS: list[tuple[str, Check]] = [
    ("leaf01", nxos_no_restore_multiplier),
    ("leaf01", nxos_every_egress_class),
    ("leaf03", eos_strata_uc_tx_queue),
    ("spine01", eos_sand_tx_queue),
    ("leaf03", eos_ecn_count),
    ("spine01", eos_ecn_count),
    ("leaf05", cumulus_scheduler_all_classes),
    ("leaf05", cumulus_lossless_pool_before_pfc),
    ("leaf05", cumulus_no_hand_set_headroom),
    ("leaf05", cumulus_watchdog_timers),
    ("leaf05", cumulus_summary_says_tc0_ecn),
    ("leaf06", sonic_dynamic_lossless_pgs_on_null),
    ("leaf07", sonic_broadcom_reserved_size_and_xon_offset),
    ("leaf07", sonic_profile_names_not_buffermgrd),
    ("leaf07", sonic_buffer_queue_per_lossless_port),
    ("leaf07", sonic_no_overlap_with_stock_3_4),
    ("leaf08", junos_classifiers_under_unit),
    ("leaf08", junos_pfc_mru),
    ("leaf08", junos_fill_levels_of_the_model_buffer),
    ("leaf08", junos_evo_speed_on_interface),
]
