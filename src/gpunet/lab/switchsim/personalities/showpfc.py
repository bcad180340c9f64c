"""PFC/ECN/queue show commands, printed in each OS's format from the simulated state.

LAB EQUIPMENT. docs/switch-show-commands.md lists these commands with example output; the
validation parsers read exactly these formats (and the real samples in ../shared/samples).
Counters come from SwitchState.counters, which tests set.
"""

from __future__ import annotations

import json
from typing import Any

from gpunet.grammar.versions import parse_version
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
        return {
            port
            for port in state.ports
            if any(line.startswith(f"nv set interface {port} qos pfc ") for line in config)
        }
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


def _eos_port_lines(config: list[str], port: str) -> list[str]:
    """The interface's own lines plus those of the qos profile its `service-profile` names."""
    lines = _block(config, f"interface {port}")
    for line in list(lines):
        if line.startswith("service-profile "):
            lines += _block(config, f"qos profile {line.split()[1]}")
    return lines


def eos_pfc_status(state: SwitchState) -> str:
    """EOS `show priority-flow-control`: the global line, then per port whether PFC is enabled
    (the port, or the `qos profile` its `service-profile` names, holds `priority-flow-control on`),
    its `priority N no-drop` priorities and whether it is active (enabled and PFC on globally).
    Global PFC is off where the config holds `priority-flow-control all mode off` (the form
    intel/intelRSD sends). Table layout as docs/switch-show-commands.md describes it [U]."""
    config: list[str] = state.config
    global_on = "priority-flow-control all mode off" not in config
    rows = [
        f"Global PFC : {'Enabled' if global_on else 'Disabled'}",
        "",
        "Port        Enabled  Priorities  Active  Note",
        "----------  -------  ----------  ------  -------------",
    ]
    for port in state.ports:
        lines = _eos_port_lines(config, port)
        enabled = "priority-flow-control on" in lines
        priorities = sorted(
            int(line.split()[2])
            for line in lines
            if line.startswith("priority-flow-control priority ") and line.endswith(" no-drop")
        )
        shown = " ".join(map(str, priorities)) if enabled else ""
        active = "Yes" if enabled and global_on else "No"
        name = port.replace("Ethernet", "Et")
        rows.append(f"{name:<12}{'Yes' if enabled else 'No':<9}{shown:<12}{active:<8}DCBX disabled")
    return "\n".join(rows)


def eos_pfc_watchdog_json(state: SwitchState) -> str:
    """`show priority-flow-control counters watchdog | json`: stuck/recovery counts per tx queue,
    listing only ports that had an event (`pfc_wd_stuck`/`pfc_wd_recovered`, eight integers)."""
    import json

    interfaces = {}
    for port in state.ports:
        counters = state.counters[port]
        stuck, recovered = counters.get("pfc_wd_stuck", [0] * 8), counters.get("pfc_wd_recovered", [0] * 8)
        queues = {
            str(q): {"stuckCount": stuck[q], "recoveryCount": recovered[q]}
            for q in range(8)
            if stuck[q] or recovered[q]
        }
        if queues:
            interfaces[port] = {"txQueues": queues}
    return json.dumps({"interfaces": interfaces}, indent=4)


def eos_pfc_counters_detail_json(state: SwitchState) -> str:
    """`show priority-flow-control counters detail | json`: PFC frames received and sent per port
    and priority (`rxFrames`/`txFrames` under `interfaces.<port>.priorities.<N>`, the fields
    Meta's DNE-TaaC reads), from `rx_pfc`/`tx_pfc`."""
    import json

    interfaces = {
        port: {
            "priorities": {
                str(prio): {
                    "rxFrames": state.counters[port]["rx_pfc"][prio],
                    "txFrames": state.counters[port]["tx_pfc"][prio],
                }
                for prio in range(8)
            }
        }
        for port in state.ports
    }
    return json.dumps({"interfaces": interfaces}, indent=4)


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


# COUNTERS_DB as the simulator holds it: the keys and fields sonic-utilities `scripts/pfcstat`
# reads (at 691b1bb: COUNTERS_PORT_NAME_MAP, `COUNTERS:<oid>`, SAI_PORT_STAT_PFC_<n>_RX_PKTS /
# _TX_PKTS), from the same rx_pfc/tx_pfc counters `show pfc counters` prints. Object ids in
# sairedis's form (`oid:0x1000000000002`: object type 1, a port), numbered from the port's place.
def sonic_counters_db(state: SwitchState) -> dict[str, dict[str, str]]:
    name_map = {port: f"oid:0x{0x1000000000002 + index:x}" for index, port in enumerate(state.ports)}
    db: dict[str, dict[str, str]] = {"COUNTERS_PORT_NAME_MAP": name_map}
    for port, oid in name_map.items():
        counters = state.counters[port]
        db[f"COUNTERS:{oid}"] = {
            f"SAI_PORT_STAT_PFC_{prio}_{direction.upper()}_PKTS": str(counters[f"{direction}_pfc"][prio])
            for direction in ("rx", "tx")
            for prio in range(8)
        }
    return db


# sonic-db-cli's `-j` (swss-common PR #1205, 85a39d8, 2026-07-22) is on master only: the
# release branches up to 202605 pin a swss-common without it (sonic-buildimage 202605 at
# 2026-08-20: src/sonic-swss-common at 240a31a). A later release is taken to have it [U].
LAST_RELEASE_WITHOUT_DB_CLI_JSON = 202605
# What sonic-db-cli before #1205 prints for `-j` (sonic-db-cli.cpp at 85a39d8~1: getopt_long
# with opterr 0 returns '?', optind already past `-j`, so the error names the next argument;
# then printUsage, of which the first line is modelled).
OLD_DB_CLI_USAGE = "usage: sonic-db-cli [-h] [-s] [-n NAMESPACE] db_or_op [cmd [cmd ...]]"


def sonic_db_cli(state: SwitchState, arguments: list[str]) -> str:
    """`sonic-db-cli [-j] COUNTERS_DB HGETALL <key>` as sonic-net/sonic-swss-common prints it
    (`sonic-db-cli/sonic-db-cli.cpp`, `common/redisreply.cpp` at 85a39d8): with `-j` (PR #1205)
    the hash as one line of JSON (nlohmann dump(-1): `{"k":"v"}`); without, redis-py's dict form
    (formatDictReply: `{'k': 'v', 'k2': 'v2'}`). A key that does not exist is an empty hash. A
    switch whose release is 202605 or older refuses `-j`; no release set: an image with it. Only
    COUNTERS_DB and HGETALL are modelled (another database or command gets an error)."""
    as_json = arguments[:1] in (["-j"], ["--json"])
    arguments = arguments[1:] if as_json else arguments
    release = parse_version("sonic", state.os_version)[0] if state.os_version else None
    if as_json and release is not None and release <= LAST_RELEASE_WITHOUT_DB_CLI_JSON:
        return f"Command Line Error: Unknown argument:{' '.join(arguments[:1])}\n{OLD_DB_CLI_USAGE}"
    if len(arguments) != 3 or arguments[0] != "COUNTERS_DB" or arguments[1].upper() != "HGETALL":
        return f"ERR unknown command '{' '.join(arguments[1:2])}' (not simulated)"
    fields = sonic_counters_db(state).get(arguments[2], {})
    if as_json:
        return json.dumps(fields, separators=(",", ":"))
    return "{" + ", ".join(f"'{key}': '{value}'" for key, value in fields.items()) + "}"


def sonic_pfc_priority(state: SwitchState) -> str:
    qos_map = state.config.get("PORT_QOS_MAP", {})
    rows = ["", "Interface    Lossless priorities", "-----------  ---------------------"]
    for port in state.ports:
        priorities = qos_map.get(port, {}).get("pfc_enable", "")
        rows.append(f"{port:<13}{priorities}")
    return "\n".join(rows)


def sonic_queue_counters(state: SwitchState, as_json: bool = False) -> str:
    """`show queue counters [--json]` as sonic-utilities `scripts/queuestat` prints it (std_header;
    one tabulate table per port, each followed by a blank line; the `For namespace <ns>:` line the
    202411 release puts before each table is not printed: this models the releases before it).
    `--json` (queuestat -j, build_json + json_dump: keys sorted, indent 2, counts as strings, the
    port's `time`). Transmitted packets from `tx_queue`, drops from `tx_drop` (absent = 0), bytes
    are packets x 1024: the same counters the EOS and Junos formatters print."""
    if as_json:
        document: dict[str, dict[str, object]] = {}
        for port in state.ports:
            counters = state.counters[port]
            drops = counters.get("tx_drop", [0] * 8)
            entry: dict[str, object] = {"time": "2026-12-02T00:00:00"}
            for queue, packets in enumerate(counters["tx_queue"]):
                entry[f"UC{queue}"] = {
                    "totalpacket": str(packets),
                    "totalbytes": str(packets * 1024),
                    "droppacket": str(drops[queue]),
                    "dropbytes": str(drops[queue] * 1024),
                }
            document[port] = entry
        return json.dumps(document, sort_keys=True, indent=2)
    tables = []
    for port in state.ports:
        counters = state.counters[port]
        drops = counters.get("tx_drop", [0] * 8)
        rows = [
            "     Port    TxQ    Counter/pkts    Counter/bytes    Drop/pkts    Drop/bytes",
            "---------  -----  --------------  ---------------  -----------  ------------",
        ]
        for queue, packets in enumerate(counters["tx_queue"]):
            dropped = drops[queue]
            rows.append(
                f"{port:>9}  {'UC' + str(queue):>5}  {packets:>14}  {packets * 1024:>15}  {dropped:>11}  "
                f"{dropped * 1024:>12}"
            )
        tables.append("\n".join(rows) + "\n")
    return "\n".join(tables)


def junos_pfc(state: SwitchState, port: str | None = None) -> str:
    """`show interfaces [<port>] extensive`, reduced to the `Physical interface:` line and the
    MAC statistics and `MAC Priority Flow Control Statistics` blocks, laid out as a QFX prints
    them (Receive/Transmit header on the `MAC statistics:` line, none under the PFC block)."""
    blocks = []
    for name in [port] if port else state.ports:
        counters = state.counters[name]
        rows = [
            f"Physical interface: {name}, Enabled, Physical link is Up",
            f"  MAC statistics:{'Receive':>29}{'Transmit':>17}",
            f"    MAC pause frames{0:>25}{0:>17}",
            "  MAC Priority Flow Control Statistics:",
        ]
        rows += [
            f"    Priority :  {prio:<2}{counters['rx_pfc'][prio]:>28}{counters['tx_pfc'][prio]:>17}"
            for prio in range(8)
        ]
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)


def _junos_cn_profiles(config: list[str]) -> list[str]:
    prefix = "set class-of-service congestion-notification-profile "
    return list(dict.fromkeys(line[len(prefix) :].split()[0] for line in config if line.startswith(prefix)))


def junos_cos_interface(state: SwitchState) -> str:
    """`show class-of-service interface`, the physical-interface part only: its index, queues and
    `Congestion-notification: Disabled` as real captures print it, or `Enabled, Name: <profile>,
    Index: N` (the form a public CoS parser reads [U]) where `set class-of-service interfaces <if>
    congestion-notification-profile <profile>` is configured."""
    config: list[str] = state.config
    indexes = {name: 60000 + n for n, name in enumerate(_junos_cn_profiles(config))}
    blocks = []
    for number, port in enumerate(state.ports):
        prefix = f"set class-of-service interfaces {port} congestion-notification-profile "
        profile = next((line[len(prefix) :].split()[0] for line in config if line.startswith(prefix)), None)
        notification = (
            f"Enabled, Name: {profile}, Index: {indexes.get(profile, 0)}" if profile else "Disabled"
        )
        blocks.append(
            f"Physical interface: {port}, Index: {1000 + number}\n"
            "Maximum usable queues: 8, Queues in use: 4\n"
            f"  Congestion-notification: {notification}"
        )
    return "\n\n".join(blocks)


def junos_cos_congestion_notification(state: SwitchState) -> str:
    """`show class-of-service congestion-notification`: per configured profile a `Type: Input`
    block; the `Priority PFC` table of IEEE 802.1p code points (as Juniper's reference prints it)
    only for a profile with `input ieee-802.1 code-point` lines. A DSCP-based profile, what gpunet
    renders, gets no table: Juniper documents none for it [U]."""
    config: list[str] = state.config
    blocks = []
    for number, name in enumerate(_junos_cn_profiles(config)):
        prefix = f"set class-of-service congestion-notification-profile {name} input ieee-802.1 code-point "
        enabled = {
            line[len(prefix) :].split()[0] for line in config if line.startswith(prefix) and " pfc" in line
        }
        rows = [f"Type: Input, Name: {name}, Index: {60000 + number}"]
        if enabled:
            rows.append("Priority     PFC")
            rows += [
                f"  {bits}          {'Enabled' if bits in enabled else 'Disabled'}"
                for bits in (format(p, "03b") for p in range(8))
            ]
        blocks.append("\n".join(rows))
    return "\n".join(blocks)


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


def _nv_values(config: list[str], prefix: str) -> dict[tuple[str, ...], str]:
    """`nv set <prefix> a b value` lines as {(a, b): value}."""
    found = {}
    for line in config:
        if line.startswith(prefix + " "):
            *keys, value = line[len(prefix) + 1 :].split()
            found[tuple(keys)] = value
    return found


def _kb_mb(value: str) -> str:
    size = int(value)
    return f"{size / 1024 / 1024:.2f} MB" if size >= 1024 * 1024 else f"{size / 1024:.2f} KB"


def _roce_facts(state: SwitchState) -> dict[str, Any]:
    """What `nv show qos roce` reports, from the configured `nv set qos ...` lines: one model that
    the text table and the `-o json` document both print."""
    config = state.config
    pfc = _nv_values(config, "nv set qos pfc")
    ecn = _nv_values(config, "nv set qos congestion-control default-global traffic-class")
    mapping = _nv_values(config, "nv set qos mapping default-global dscp")
    trust = _nv_values(config, "nv set qos mapping default-global").get(("trust",), "")
    queues = _nv_values(config, "nv set qos egress-queue-mapping default-global switch-priority")
    scheduler = _nv_values(config, "nv set qos egress-scheduler default-global traffic-class")
    ecn_tcs = sorted({k[0] for k, v in ecn.items() if k[1:] == ("ecn",) and v == "enable"}, key=int)
    first_tc = ecn_tcs[0] if ecn_tcs else ""
    prio_map = []
    for prio in range(8):
        dscps = sorted(
            (k[0] for k, v in mapping.items() if k[1:] == ("switch-priority",) and v == str(prio)), key=int
        )
        prio_map.append((prio, ",".join(dscps)))
    tc_map = []
    for prio in range(8):
        tc = queues.get((str(prio), "traffic-class"), "0")
        mode = scheduler.get((tc, "mode"), "dwrr")
        weight = "strict-priority" if mode == "strict" else f"DWRR-{scheduler.get((tc, 'bw-percent'), '0')}%"
        tc_map.append((prio, tc, weight))
    return {
        "enable": "on" if pfc or ecn else "off",
        "pfc_priority": next((v for k, v in pfc.items() if k[1:] == ("switch-priority",)), ""),
        "cable": next((v for k, v in pfc.items() if k[1:] == ("cable-length",)), ""),
        "rx": "enabled" if any(k[1:] == ("rx",) and v == "enable" for k, v in pfc.items()) else "disabled",
        "tx": "enabled" if any(k[1:] == ("tx",) and v == "enable" for k, v in pfc.items()) else "disabled",
        "ecn_tcs": ecn_tcs,
        "min": ecn.get((first_tc, "min-threshold"), ""),
        "max": ecn.get((first_tc, "max-threshold"), ""),
        "probability": ecn.get((first_tc, "probability"), ""),
        "trust_mode": {"l3": "dscp", "l2": "pcp", "both": "pcp,dscp"}.get(trust, trust),
        "prio_map": prio_map,
        "tc_map": tc_map,
    }


def cumulus_qos_roce(state: SwitchState) -> str:
    """`nv show qos roce`, laid out like Cumulus Linux 5.x (sample switch_cumulus_nv-show-qos-roce_1.txt),
    from the configured `nv set qos ...` lines. As in the sample, most fields fill only the
    operational column; `mode` fills both and `enable` only the applied one."""
    facts = _roce_facts(state)
    pfc_priority = facts["pfc_priority"]
    rows = [
        ("enable", "", facts["enable"]),
        ("mode", "lossless", "lossless"),
        ("pfc", None, None),
        ("  pfc-priority", pfc_priority, ""),
        ("  rx-enabled", facts["rx"], ""),
        ("  tx-enabled", facts["tx"], ""),
        ("  cable-length", facts["cable"], ""),
        ("congestion-control", None, None),
        ("  congestion-mode", "ECN", ""),
        ("  enabled-tc", ",".join(facts["ecn_tcs"]), ""),
        ("  min-threshold", _kb_mb(facts["min"]) if facts["min"] else "", ""),
        ("  max-threshold", _kb_mb(facts["max"]) if facts["max"] else "", ""),
        ("  probability", facts["probability"], ""),
        ("trust", None, None),
        ("  trust-mode", facts["trust_mode"], ""),
        ("lldp-app-tlv", None, None),
        ("  priority", pfc_priority, ""),
        ("  protocol-id", "4791", ""),
        ("  selector", "UDP", ""),
    ]
    out = [f"{'':<20}{'operational':<23}applied", f"{'-' * 18}  {'-' * 21}  {'-' * 21}"]
    for name, operational, applied in rows:
        out.append(name if operational is None else f"{name:<20}{operational:<23}{applied}".rstrip())
    out += ["RoCE PCP/DSCP->SP mapping configurations", "=" * 43]
    out += [f"{'':<7}pcp  {'dscp':<25}switch-prio", f"    -  ---  {'-' * 23}  -----------"]
    for prio, dscps in facts["prio_map"]:
        out.append(f"    {prio}  {prio:<3}  {dscps:<23}  {prio}")
    out += ["RoCE SP->TC mapping and ETS configurations", "=" * 45]
    out += [
        f"{'':<7}switch-prio  traffic-class  scheduler-weight",
        "    -  -----------  -------------  ----------------",
    ]
    for prio, tc, weight in facts["tc_map"]:
        out.append(f"    {prio}  {prio:<11}  {tc:<13}  {weight}")
    out += ["Exception List", "=" * 17, "No Data"]
    return "\n".join(out)


def cumulus_qos_roce_json(state: SwitchState) -> str:
    """`nv show qos roce -o json` from the same model, shaped by NVIDIA's NVUE OpenAPI spec for
    Cumulus Linux 5.3.0 (`cue-show-schema-roce-roce`: `enable`, `mode`, `pfc`, `congestion-control`
    with thresholds as integers in bytes, `trust`, `lldp-app-tlv`, and the `prio-map` / `tc-map`
    collections keyed by id with the columns `pcp dscp switch-prio` / `switch-prio traffic-class
    scheduler-weight`). The 5.3.0 spec has no `cable-length` or `probability`: not printed."""
    facts = _roce_facts(state)
    congestion: dict[str, Any] = {"congestion-mode": "ECN", "enabled-tc": ",".join(facts["ecn_tcs"])}
    if facts["min"]:
        congestion["min-threshold"] = int(facts["min"])
    if facts["max"]:
        congestion["max-threshold"] = int(facts["max"])
    lldp: dict[str, Any] = {"protocol-id": 4791, "selector": "UDP"}
    if facts["pfc_priority"]:
        lldp["priority"] = int(facts["pfc_priority"])
    document = {
        "enable": facts["enable"],
        "mode": "lossless",
        "pfc": {"pfc-priority": facts["pfc_priority"], "rx-enabled": facts["rx"], "tx-enabled": facts["tx"]},
        "congestion-control": congestion,
        "trust": {"trust-mode": facts["trust_mode"]},
        "lldp-app-tlv": lldp,
        "prio-map": {str(p): {"pcp": p, "dscp": d, "switch-prio": p} for p, d in facts["prio_map"]},
        "tc-map": {
            str(p): {"switch-prio": p, "traffic-class": int(tc), "scheduler-weight": w}
            for p, tc, w in facts["tc_map"]
        },
    }
    return json.dumps(document, indent=2)
