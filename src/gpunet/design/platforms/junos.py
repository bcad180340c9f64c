"""Juniper Junos (QFX): headroom from the congestion-notification profile's cable length and pfc mru;
ECN fill levels from the model's documented buffer; EVO vs Junos OS differences."""

from __future__ import annotations

import re
from typing import Any

from gpunet.design.platform_defaults import BufferParameters, PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.design.units import bytes_to_fill_decimal, bytes_to_fill_percent, dscp_bits
from gpunet.hardware import SwitchModel

# Juniper's documented default ingress shared-buffer partitions (buffer-partition (Ingress), Table 1:
# lossless 9 %, lossless-headroom 45 %, lossy 46 %), the recommended split for two lossless classes.
INGRESS_PARTITIONS = (("lossless", 9), ("lossless-headroom", 45), ("lossy", 46))
# The switch's own control traffic goes to the default forwarding class network-control (queue 7 on
# EX/QFX), which Juniper's default scheduler gives 5 % (Junos CoS, Default Schedulers Overview:
# https://www.juniper.net/documentation/us/en/software/junos/cos/topics/concept/schedulers-default-cos-config-guide.html;
# queue 7 on switches: .../cos-security-devices/topics/concept/cos-scheduler-default-security-setting.html).
# A scheduler map that leaves it out leaves that traffic without a scheduler.
NETWORK_CONTROL = "network-control"
NETWORK_CONTROL_QUEUE = 7
NETWORK_CONTROL_PERCENT = 5

# The fill level's basis (Juniper, Configuring CoS WRED Drop Profiles: "a percentage of the memory used
# to store packets in relation to the total amount of memory allocated to the queue").
WRED_DROP_PROFILES = (
    "https://www.juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/topics/task/"
    "cos-drop-profiles-qfx-series-cli.html"
)
# Understanding CoS Buffer Configuration: Table 1 gives each QFX's buffer (QFX5120 32 MB, QFX5240 165 MB);
# the dedicated buffer pool is divided equally among the switch ports, the shared pool allocated as needed.
BUFFER_TABLE = (
    "https://www.juniper.net/documentation/us/en/software/junos/traffic-mgmt-qfx/topics/concept/"
    "cos-qfx-series-buffer-configuration-understanding.html"
)
# Junos OS QFX buffer-size: "Set the dedicated buffer size of the egress queue" as a share of the port's
# dedicated buffer.
BUFFER_SIZE_QFX = (
    "https://juniper.net/documentation/en_US/junos13.2/topics/reference/configuration-statement/"
    "buffer-size-edit-class-of-service-qfx-series.html"
)
# Junos OS Evolved buffer-dynamic-threshold: the per-queue alpha that bounds a queue's use of the shared
# pool (introduced in Junos OS Evolved 22.3R1 for QFX5220).
BUFFER_DYNAMIC_THRESHOLD = (
    "https://www.juniper.net/documentation/us/en/software/junos/cli-reference/topics/ref/statement/"
    "class-of-service-schedulers-buffer-dynamic-threshold.html"
)


class JunosDesign(PlatformDesign):
    name = "junos"
    limits = PlatformLimits(max_mtu=9216, watchdog_interval_ms=100)  # Junos pfc-watchdog poll-interval
    sizes_headroom_itself = True

    def speed(self, speed_gbps: int, lanes: int | None) -> str:
        return f"{speed_gbps}g"

    def breakout_parent(self, cage: str, cage_lanes: int) -> str | None:
        # A channelized port is configured on its unchannelized name, et-<fpc>/<pic>/<port>.
        return f"et-{cage}"

    def ecn_device(
        self, min_bytes: int, max_bytes: int, buffer: BufferParameters, model: SwitchModel
    ) -> dict[str, Any]:
        # The fill level is the percentage the queue is full (Juniper/yang 24.4R1 class-of-service
        # drop-profiles interpolate fill-level: "Data points for queue full percentage"). Junos OS
        # Evolved takes decimal64 with 9 fraction digits, Junos OS QFX whole percents (uint32).
        if model.junos_flavour == "evo":
            low = bytes_to_fill_decimal(min_bytes, buffer.queue_buffer_bytes)
            high = bytes_to_fill_decimal(max_bytes, buffer.queue_buffer_bytes)
            device: dict[str, Any] = {"unit": "percent fill level (decimal)", "min": low, "max": high}
        else:
            low_int = bytes_to_fill_percent(min_bytes, buffer.queue_buffer_bytes)
            # Junos needs rising fill levels; rounding may make both equal on a large buffer.
            high_int = max(low_int + 1, bytes_to_fill_percent(max_bytes, buffer.queue_buffer_bytes))
            device = {"unit": "percent fill level", "min": low_int, "max": min(high_int, 100)}
        device["min_bytes_meant"] = _fill_to_bytes(device["min"], buffer.queue_buffer_bytes)
        device["max_bytes_meant"] = _fill_to_bytes(device["max"], buffer.queue_buffer_bytes)
        if max_bytes > buffer.queue_buffer_bytes:
            device["note"] = (
                f"ECN max threshold {max_bytes} bytes exceeds queue_buffer_bytes "
                f"{buffer.queue_buffer_bytes}: rendered as fill level 100 %."
            )
        return device

    def profile_name(self, speed_gbps: int, mtu: int, cable_m: int, fabric_mtu: int) -> str | None:
        return f"cnp-{cable_m}m"  # Junos derives headroom from cable length and MRU itself

    def headroom_rendered_as(self, port: dict[str, Any], model: SwitchModel) -> str:
        return f"cable length and pfc mru in {port['pfc_profile']}"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        flavour = context.model.junos_flavour
        if flavour not in ("evo", "junos-os"):
            raise ValueError(f"hardware model {context.model.name} has no junos_flavour")
        return {
            "flavour": flavour,
            # EVO takes `speed` on the interface; Junos OS QFX sets it under chassis (not rendered).
            "interface_speed": flavour == "evo",
            # Junos OS Evolved 24.4 has no ingress/egress buffer-partition in its CoS schema.
            "ingress_partitions": (
                [{"name": n, "percent": p} for n, p in INGRESS_PARTITIONS] if flavour == "junos-os" else []
            ),
            "mru": context.system_mtu,
            "classifier": _classifier(context),
            **_schedules(context),
            # Junos OS QFX: `chassis fpc <fpc> pic <pic> port <port> speed <speed>` (Juniper, Configure
            # Port Speed, port level) or, channelized, `... port <port> channel-speed <speed>` once per
            # cage; sources in models.yml physical of the Junos OS models.
            "chassis_ports": [] if flavour == "evo" else _chassis_ports(context.ports),
            # Junos OS Evolved: `interfaces <parent> number-of-sub-ports <K>` and `speed <channel speed>`
            # on the parent; the channels et-.../N:<k> take no speed of their own.
            "channelized": _channelized(context.ports) if flavour == "evo" else [],
        }

    def notes(self, context: DesignContext, specifics: dict[str, Any]) -> list[str]:
        notes = [
            "Junos derives PFC headroom from the congestion-notification profile's cable length and the "
            f"lossless code point's pfc mru ({specifics['mru']}); the computed values below show what to "
            "expect.",
            _fill_note(context),
        ]
        control = specifics["network_control"]
        notes.append(
            "The classifier maps all 64 DSCP code points to the policy's forwarding classes, so no traffic "
            "falls into best-effort without a scheduler."
        )
        if control:
            donor = control["taken_from"]
            notes.append(
                f"The switch's own control traffic is in forwarding class {control['name']} (queue "
                f"{control['queue']}): it gets a scheduler with Juniper's default {control['percent']} %, "
                f"taken from {donor} ({specifics['transmit_percent'][donor]} % rendered)."
            )
        if not specifics["interface_speed"]:
            notes.append(
                "Junos OS (not Evolved): port speed is set under `chassis fpc <n> pic <n> port <n> speed` "
                "(Juniper, Configure Port Speed, port level), not on the interface."
            )
        split = [c["parent"] for c in specifics["channelized"]] or [
            f"port {c['port']}" for c in specifics["chassis_ports"] if c["keyword"] == "channel-speed"
        ]
        if split:
            notes.append(
                f"Channelized ({len(split)}): {', '.join(split)}; the channels are <port>:0, :1, ... "
                + (
                    "(number-of-sub-ports and speed on the parent interface)."
                    if specifics["interface_speed"]
                    else "(chassis fpc/pic/port channel-speed)."
                )
            )
        if specifics["interface_speed"]:
            notes.append(
                "Junos OS Evolved: port speed is set on each interface. Its CoS schema (24.4R1-EVO) has no "
                "ingress/egress buffer-partition, so the shared buffer keeps the switch's own split."
            )
        else:
            notes.append(
                "Ingress shared-buffer partitions are Juniper's documented default (lossless 9 %, "
                "lossless-headroom 45 %, lossy 46 %)."
            )
        return notes


def _chassis_ports(ports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One chassis statement per port gpunet uses: `speed` unchannelized, `channel-speed` once per
    channelized cage (its children share the cage's mode, so the first one speaks for it)."""
    lines: dict[tuple[str, str, str], dict[str, Any]] = {}
    for port in ports:
        fpc, pic, number = re.fullmatch(r"[a-z]{2}-(\d+)/(\d+)/(\d+)(:\d+)?", port["name"]).groups()[:3]  # type: ignore[union-attr]
        keyword = "channel-speed" if (port["children"] or 1) > 1 else "speed"
        line = {"name": port["name"], "fpc": fpc, "pic": pic, "port": number, "keyword": keyword}
        lines.setdefault((fpc, pic, number), {**line, "speed": port["speed"]})
    return list(lines.values())


def _channelized(ports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cages: dict[str, dict[str, Any]] = {}
    for port in ports:
        if (port["children"] or 1) > 1:
            parent = port["name"].split(":", 1)[0]
            cages.setdefault(
                parent, {"parent": parent, "sub_ports": port["children"], "speed": port["speed"]}
            )
    return list(cages.values())


def _fill_to_bytes(level: str | int, basis: int) -> int:
    return round(float(level) * basis / 100)


def _fill_note(context: DesignContext) -> str:
    """What the rendered fill levels make the device do, in bytes, under each basis Juniper's buffer
    model allows: Juniper defines no byte figure for "the memory allocated to the queue" on these
    switches, so the note names the basis it assumes and what the device does if the basis differs."""
    device = context.ecn["device"]
    model = context.model
    basis = context.buffer.queue_buffer_bytes
    levels = f"{device['min']} % / {device['max']} %"
    form = (
        "decimal fill levels (Junos OS Evolved: decimal64, 9 digits)"
        if model.junos_flavour == "evo"
        else "whole-percent fill levels (Junos OS QFX: uint32), rounded, at least 1"
    )
    meant = f"{device['min_bytes_meant']} / {device['max_bytes_meant']} bytes"
    policy = f"{context.ecn['min_bytes']} / {context.ecn['max_bytes']}"
    head = (
        f"ECN thresholds are {form}: fill level {levels}. Juniper defines the fill level as a percentage "
        f"of the total memory allocated to the queue, not of the chip buffer ({WRED_DROP_PROFILES})"
    )
    if basis != model.buffer_bytes:
        return (
            f"{head}. Basis: gpunet_switch_buffer.queue_buffer_bytes, {basis} bytes, set for this switch "
            f"as the queue's allocation: the device marks from {meant} (policy {policy})."
        )
    share = model.buffer_bytes // model.ports
    bound = f"{_fill_to_bytes(device['min'], share)} / {_fill_to_bytes(device['max'], share)} bytes"
    if model.junos_flavour == "evo":
        shared = (
            "its dynamic share of the shared pool (per-queue alpha, buffer-dynamic-threshold: "
            f"{BUFFER_DYNAMIC_THRESHOLD})"
        )
        dedicated = "the queue's part of its port's dedicated buffer"
    else:
        shared = "what it takes from the shared pool, which the switch allocates to ports as they need it"
        dedicated = (
            "the queue's dedicated buffer, the scheduler's buffer-size percent of its port's dedicated "
            f"buffer ({BUFFER_SIZE_QFX}; gpunet renders no buffer-size, so the switch's default applies)"
        )
    return (
        f"{head}; no Juniper source in hand gives that allocation in bytes for the {model.name}, so the "
        f"basis is the model's documented buffer, an assumption: {basis} bytes (Juniper, Understanding CoS "
        f"Buffer Configuration, Table 1: {BUFFER_TABLE}), under "
        f"which the device marks from {meant} (policy {policy}). Under the other bases the device marks "
        f"earlier, at {levels} of the queue's allocation: (a) {dedicated}, within one port's equal part "
        "of the dedicated pool (the same page: dedicated buffers are divided equally among the ports), "
        f"so at most {model.buffer_bytes} / {model.ports} ports = {share} bytes: it marks from at most "
        f"{bound}; (b) that plus {shared}: between (a) and {meant}, moving with the free shared "
        "buffer. Once the queue's allocation is known, set gpunet_switch_buffer.queue_buffer_bytes to it."
    )


def _classifier(context: DesignContext) -> list[dict[str, Any]]:
    """Every DSCP code point to its queue's forwarding class, so none falls through to best-effort."""
    by_class = {queue["traffic_class"]: queue["name"] for queue in context.queues}
    points: dict[str, list[str]] = {queue["name"]: [] for queue in context.queues}
    for entry in context.classification["dscp_to_tc"]:
        name = by_class.get(entry["traffic_class"])
        if name is not None:
            points[name].append(dscp_bits(entry["dscp"]))
    return [{"forwarding_class": name, "code_points": bits} for name, bits in points.items() if bits]


def _schedules(context: DesignContext) -> dict[str, Any]:
    """Transmit rates per queue, with network-control's 5 % taken from the largest lossy DWRR share (the
    policy's queues alone total up to 100 %). No network-control scheduler where the policy itself has a
    queue on queue 7."""
    rates = {q["name"]: q["bandwidth_percent"] for q in context.queues if not q["strict"]}
    if any(q["traffic_class"] == NETWORK_CONTROL_QUEUE for q in context.queues) or not rates:
        return {"transmit_percent": rates, "network_control": None}
    lossless = {q["name"] for q in context.queues if q["lossless"]}
    # From a lossy queue where one has room (the RoCE class keeps its share), else the largest.
    donor = max(
        rates,
        key=lambda name: (name not in lossless and rates[name] > NETWORK_CONTROL_PERCENT, rates[name], name),
    )
    if rates[donor] <= NETWORK_CONTROL_PERCENT:
        raise ValueError(f"no DWRR queue above {NETWORK_CONTROL_PERCENT} % to give network-control its share")
    rates[donor] -= NETWORK_CONTROL_PERCENT
    return {
        "transmit_percent": rates,
        "network_control": {
            "name": NETWORK_CONTROL,
            "queue": NETWORK_CONTROL_QUEUE,
            "percent": NETWORK_CONTROL_PERCENT,
            "taken_from": donor,
        },
    }
