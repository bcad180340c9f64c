"""PFC/ECN/queue show commands, printed in each OS's format from the simulated state.

LAB EQUIPMENT. docs/switch-show-commands.md lists these commands with example output; the
validation parsers read exactly these formats (and the real samples in ../shared/samples).
Counters come from SwitchState.counters, which tests set.
"""

from __future__ import annotations

from typing import Any

from gpunet.lab.switchsim.state import SwitchState


def _block(config: list[str], header: str) -> list[str]:
    """The indented lines under `header` in a line-platform running config."""
    lines, inside = [], False
    for line in config:
        if line == header:
            inside = True
        elif inside and line.startswith(" "):
            lines.append(line.strip())
        elif inside:
            break
    return lines


def pfc_enabled_ports(state: SwitchState) -> set[str]:
    """Ports whose configuration turns PFC on, read the way each OS stores it."""
    config: Any = state.config
    if state.platform == "sonic":
        qos_map = config.get("PORT_QOS_MAP", {})
        return {port for port in state.ports if qos_map.get(port, {}).get("pfc_enable")}
    if state.platform == "cumulus":
        global_pfc = any(line.startswith("nv set qos pfc default-global") for line in config)
        return set(state.ports) if global_pfc else set()
    if state.platform == "junos":
        return {
            port
            for port in state.ports
            if any(port in line and "congestion-notification" in line for line in config)
        }
    enabled = set()
    for port in state.ports:
        block = _block(config, f"interface {port}")
        if any(
            line.startswith("priority-flow-control") or line.startswith("service-profile") for line in block
        ):
            enabled.add(port)
    return enabled


def nxos_pfc(state: SwitchState) -> str:
    enabled = pfc_enabled_ports(state)
    rows = []
    for port in state.ports:
        counters = state.counters[port]
        mode, oper = ("On", "On  (8)") if port in enabled else ("Auto", "Off")
        rows.append(f"{port:<19}{mode:<5}{oper:<15}{sum(counters['rx_pfc']):<11}{sum(counters['tx_pfc'])}")
    rule = "=" * 60
    return "\n".join(
        [
            "",
            "slot  1",
            "=======",
            "",
            rule,
            f"{'Port':<19}{'Mode':<5}{'Oper(VL bmap)':<15}{'RxPPP':<11}TxPPP",
            rule,
            "",
            *rows,
        ]
    )


def eos_pfc_counters(state: SwitchState) -> str:
    rows = [f"{'Port':<14}{'RxPfc':>12}{'TxPfc':>12}"]
    for port in state.ports:
        counters = state.counters[port]
        short = port.replace("Ethernet", "Et")
        rows.append(f"{short:<14}{sum(counters['rx_pfc']):>12}{sum(counters['tx_pfc']):>12}")
    return "\n".join(rows)


def cumulus_pfc_stats(state: SwitchState, port: str) -> str:
    counters = state.counters[port]
    header = "switch-priority  rx-pause-frames  rx-pause-duration  tx-pause-frames  tx-pause-duration"
    rule = "  ".join("-" * len(column) for column in header.split("  ") if column)
    rows = [
        f"{prio:<17}{counters['rx_pfc'][prio]:<17}{0:<19}{counters['tx_pfc'][prio]:<17}0" for prio in range(8)
    ]
    return "\n".join([header, rule, *rows])


def sonic_pfc_counters(state: SwitchState) -> str:
    out = []
    for direction, key in (("Rx", "rx_pfc"), ("Tx", "tx_pfc")):
        out.append(f"   Port {direction}    " + "    ".join(f"PFC{p}" for p in range(8)))
        out.append(" -----------  " + "  ".join("------" for _ in range(8)))
        for port in state.ports:
            values = "".join(f"{v:>8}" for v in state.counters[port][key])
            out.append(f"{port:>10}{values}")
        out.append("")
    return "\n".join(out).rstrip("\n")


def sonic_pfc_priority(state: SwitchState) -> str:
    qos_map = state.config.get("PORT_QOS_MAP", {})
    rows = ["", "Interface    Lossless priorities", "-----------  ---------------------"]
    for port in state.ports:
        priorities = qos_map.get(port, {}).get("pfc_enable", "")
        rows.append(f"{port:<13}{priorities}")
    return "\n".join(rows)


def sonic_queue_counters(state: SwitchState) -> str:
    rows = [
        "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes",
        "---------  -----  --------------  ---------------  -----------  ------------",
    ]
    for port in state.ports:
        for queue, packets in enumerate(state.counters[port]["tx_queue"]):
            rows.append(
                f"{port:>9}  {'UC' + str(queue):>5}  {packets:>14}  {packets * 1024:>15}  {0:>11}  {0:>12}"
            )
    return "\n".join(rows)


def junos_pfc(state: SwitchState, port: str) -> str:
    counters = state.counters[port]
    rows = [
        f"Physical interface: {port}, Enabled, Physical link is Up",
        "  MAC Priority Flow Control Statistics:",
        f"{'Receive':>39}{'Transmit':>21}",
    ]
    rows += [
        f"    Priority :  {prio:<2}{counters['rx_pfc'][prio]:>24}{counters['tx_pfc'][prio]:>21}"
        for prio in range(8)
    ]
    return "\n".join(rows)


def sonic_ecn(state: SwitchState) -> str:
    """`show ecn`: one block per WRED_PROFILE entry, fields in config_db order."""
    blocks = []
    for name, fields in state.config.get("WRED_PROFILE", {}).items():
        key_width = max((len(key) for key in fields), default=1)
        value_width = max((len(str(value)) for value in fields.values()), default=1)
        rule = f"{'-' * key_width}  {'-' * value_width}"
        rows = [f"{key:<{key_width}}  {value}" for key, value in fields.items()]
        blocks.append("\n".join([f"Profile: {name}", rule, *rows, rule]))
    return "\n\n".join(blocks)
