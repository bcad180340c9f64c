"""STAND-IN for the NIC tools of a host with RDMA NICs (none exist on the test machines).

One script plays mlnx_qos, dcb, ethtool and ip (chosen by the first argument). It keeps the NICs'
state in the JSON file $GPUNET_FAKE_STATE, appends every call to $GPUNET_FAKE_CALLS (one JSON list
per line), and prints mlnx_qos's and dcb's output in the real tools' layouts (see
../shared/samples/mlnx_qos_att-netarbiter_1.txt, mlnx-tools python/mlnx_qos pretty_print and iproute2
dcb/dcb_ets.c, dcb_pfc.c). It refuses what the real tools and the mlx5 driver refuse (list lengths,
--tcbw on a non-ETS class, ETS shares that do not total 100) and keeps their quirks (mlnx_qos sends
an all-off PFC vector with a --cable_len given alone; mlx5 drops a cable length of 1000 m or more).
`ip link set dev X mtu N` writes the fake sysfs tree under $GPUNET_FAKE_SYSFS, as the kernel would.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    tool, args = argv[0], argv[1:]
    with open(os.environ["GPUNET_FAKE_CALLS"], "a") as calls:
        calls.write(json.dumps([tool, *args]) + "\n")
    state_file = Path(os.environ["GPUNET_FAKE_STATE"])
    state = json.loads(state_file.read_text())
    handler = {"mlnx_qos": mlnx_qos, "dcb": dcb, "ethtool": ethtool, "ip": ip}[tool]
    rc = handler(state, args)
    state_file.write_text(json.dumps(state))
    return rc


def nic(state: dict, netdev: str) -> dict:
    if netdev not in state:
        print(f"{netdev}: no such device", file=sys.stderr)
        raise SystemExit(1)
    return state[netdev]


# The mlx5 kernel driver's side of the DCB netlink calls (drivers/net/ethernet/mellanox/mlx5/core/
# en_dcbnl.c): the factory ETS of mlx5e_ets_init (every class "vendor", priority 0 on TC 1 and 1 on TC 0),
# the cable length kept only from 1 to 999 m and reported only with port buffer support
# (mlx5e_dcbnl_ieee_setpfc/getpfc), and mlx5e_dbcnl_validate_ets (ETS shares total 100).
MLX5_MAX_CABLE_LENGTH = 1000
FACTORY_ETS = {"prio_tc": [1, 0, 2, 3, 4, 5, 6, 7], "tsa": ["vendor"] * 8, "tc_bw": [100] * 8, "cable_len": 7}
TSA_NAMES = ("strict", "ets", "vendor")


def ets_of(current: dict) -> dict:
    for key, value in FACTORY_ETS.items():
        current.setdefault(key, list(value) if isinstance(value, list) else value)
    current.setdefault("buffer", True)
    return current


def kernel_set_pfc(current: dict, pfc: list[int], delay: int) -> None:
    current["pfc"] = pfc
    if delay and delay < MLX5_MAX_CABLE_LENGTH:
        current["cable_len"] = delay


def kernel_set_ets(current: dict, prio_tc: list[int], tsa: list[str], tc_bw: list[int]) -> str:
    """mlx5e_dcbnl_ieee_setets: an error text, or "" after storing what getets reports back."""
    shares = [bw for name, bw in zip(tsa, tc_bw, strict=True) if name == "ets"]
    if shares and sum(shares) != 100:
        return "[Errno 22] Invalid argument"  # mlx5e_dbcnl_validate_ets: "BW sum is illegal"
    current["prio_tc"], current["tsa"] = list(prio_tc), list(tsa)
    # getets reports strict and vendor classes at 100 % (MLX5E_MAX_BW_ALLOC), 0 % ETS classes at 0.
    current["tc_bw"] = [bw if name == "ets" else 100 for name, bw in zip(tsa, tc_bw, strict=True)]
    return ""


def refuse(message: str) -> int:
    print(message)
    return 1


def mlnx_qos(state: dict, args: list[str]) -> int:
    """Like mlnx-tools python/mlnx_qos: options checked and applied in its order, then pretty_print."""
    options = dict(itertools.pairwise(args))
    current = ets_of(nic(state, options["-i"]))
    if "--trust" in options and "--dscp2prio" in options:
        return refuse("trust and dscp2prio commands cannot be used at the same time.")
    delay = 0
    if "--cable_len" in options:
        if not options["--cable_len"].isdigit() or int(options["--cable_len"]) > 0xFFFF:
            return refuse(f"Bad value for cable_len: {options['--cable_len']}")
        delay = int(options["--cable_len"])
    pfc_en = [0] * 8  # mlnx_qos sends pfc_en 0 unless --pfc is given, also with --cable_len alone
    if "--pfc" in options:
        pfc_en = [int(v) for v in options["--pfc"].split(",")]
        if len(pfc_en) != 8:
            return refuse("pfc list must have 8 items")
    if "--cable_len" in options or "--pfc" in options:
        kernel_set_pfc(current, pfc_en, delay)
    for flag, value in itertools.pairwise(args):
        if flag == "--dscp2prio":
            _, dscp, prio = value.split(",")
            current.setdefault("dscp2prio", {})[dscp] = int(prio)
    if "--trust" in options:
        current["trust"] = options["--trust"]
    prio_tc, tsa, tc_bw = list(current["prio_tc"]), list(current["tsa"]), list(current["tc_bw"])
    if "--tsa" in options:
        tsa = options["--tsa"].split(",")
        if bad := [t for t in tsa if t not in TSA_NAMES]:
            return refuse(f"('Bad TSA value: ', '{bad[0]}')")
        if len(tsa) != 8:
            return refuse("tsa list must have 8 items")
    if "--tcbw" in options:
        tc_bw = [int(v) for v in options["--tcbw"].split(",")]
        if len(tc_bw) != 8:
            return refuse("tcbw list must have 8 items")
        if any(name != "ets" and bw for name, bw in zip(tsa, tc_bw, strict=True)):
            return refuse("ETS BW for a strict/vendor TC must be 0")
    if "--prio_tc" in options:
        prio_tc = [int(v) for v in options["--prio_tc"].split(",")]
        if len(prio_tc) != 8:
            return refuse("prio_tc list must have 8 items")
    if {"--tsa", "--tcbw", "--prio_tc"} & set(options) and (
        error := kernel_set_ets(current, prio_tc, tsa, tc_bw)
    ):
        return refuse(error)
    print("DCBX mode: OS controlled")
    print(f"Priority trust state: {current['trust']}")
    print("dscp2prio mapping:")
    table: dict[int, list[int]] = {p: [] for p in range(8)}
    for dscp in range(63, -1, -1):
        table[int(current.get("dscp2prio", {}).get(str(dscp), dscp >> 3))].append(dscp)
    for prio, dscps in table.items():
        print(f"        prio:{prio} dscp:" + "".join(f"{d:02d}," for d in dscps))
    print(f"Cable len: {current['cable_len'] if current['buffer'] else 0}")
    print("PFC configuration:")
    print("        priority    0   1   2   3   4   5   6   7")
    print("        enabled     " + "   ".join(str(v) for v in current["pfc"]) + "   ")
    # Only the classes that hold a priority, in the order their first priority comes (tc2up).
    tc2up: dict[int, list[int]] = {}
    for prio, tc in enumerate(current["prio_tc"]):
        tc2up.setdefault(tc, []).append(prio)
    for tc, prios in tc2up.items():
        name = current["tsa"][tc]
        print(
            f"tc: {tc} ratelimit: unlimited, tsa: "
            + (f"ets, bw: {current['tc_bw'][tc]}%" if name == "ets" else name)
        )
        for prio in prios:
            print(f"\t priority:  {prio}")
    return 0


# Like iproute2's dcb, which prints a DSCP by its rt_dsfield name where one exists (dcb_app.c).
RT_DSFIELD_NAMES = {0: "CS0", 8: "CS1", 10: "AF11", 26: "AF31", 34: "AF41", 46: "EF", 48: "CS6", 56: "CS7"}


def mappings(words: list[str], keys: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """`dcb ... set` arguments: KEYWORD then KEY:VALUE words ("all:" for every index), per keyword."""
    found: dict[str, list[tuple[str, str]]] = {}
    keyword = ""
    for word in words:
        if word in keys:
            keyword = word
            found[keyword] = []
        elif ":" in word and keyword:
            key, value = word.split(":", 1)
            found[keyword] += [(str(i), value) for i in range(8)] if key == "all" else [(key, value)]
        elif keyword:
            found[keyword].append(("", word))
    return found


def dcb(state: dict, args: list[str]) -> int:
    obj, verb, netdev = args[0], args[1], args[3]
    current = nic(state, netdev)
    words = args[4:]
    if obj == "pfc" and verb == "show":
        ets_of(current)
        if not words or "prio-pfc" in words:
            print("prio-pfc " + " ".join(f"{p}:{'on' if v else 'off'}" for p, v in enumerate(current["pfc"])))
        if "delay" in words:  # mlx5e_dcbnl_ieee_getpfc reports the cable length only with buffer control
            print(f"delay {current['cable_len'] if current['buffer'] else 0}")
    elif obj == "pfc" and verb == "set":
        given = mappings(words, ("prio-pfc", "delay"))
        pfc = list(current["pfc"])
        for prio, value in given.get("prio-pfc", []):
            pfc[int(prio)] = int(value == "on")
        delay = int(given["delay"][0][1]) if "delay" in given else 0
        if current.get("driver") == "mlx5_core":
            kernel_set_pfc(ets_of(current), pfc, delay)
        else:
            current["pfc"] = pfc
    elif obj == "app" and verb == "show":
        app = sorted(current.get("app", {}).items(), key=lambda item: int(item[0]))
        print("dscp-prio " + " ".join(f"{RT_DSFIELD_NAMES.get(int(d), d)}:{p}" for d, p in app))
    elif obj == "app" and verb == "replace":
        for item in args[5:]:
            dscp, prio = item.split(":")
            current.setdefault("app", {})[dscp] = int(prio)
    elif obj == "ets" and verb == "show":
        ets_of(current)
        for word in words or ["prio-tc", "tc-tsa", "tc-bw"]:
            values = {"prio-tc": current["prio_tc"], "tc-tsa": current["tsa"], "tc-bw": current["tc_bw"]}[
                word
            ]
            print(f"{word} " + " ".join(f"{i}:{v}" for i, v in enumerate(values)))
    elif obj == "ets" and verb == "set":
        ets_of(current)
        given = mappings(words, ("prio-tc", "tc-tsa", "tc-bw"))
        prio_tc, tsa, tc_bw = list(current["prio_tc"]), list(current["tsa"]), list(current["tc_bw"])
        for key, value in given.get("prio-tc", []):
            prio_tc[int(key)] = int(value)
        for key, value in given.get("tc-tsa", []):
            if value not in ("strict", "cbs", "ets", "vendor"):
                return refuse(f"Invalid tc-tsa mapping {key}:{value}")
            tsa[int(key)] = value
        for key, value in given.get("tc-bw", []):
            tc_bw[int(key)] = int(value)
        # dcb_ets_validate_bw: every class's bw counts, total 100 (0 only without an ETS class).
        total, has_ets = sum(tc_bw), "ets" in tsa
        if total != 100 and (has_ets or total != 0):
            print(
                f"Bandwidth percentages in tc-bw sum to {total}%, expected {100 if has_ets else 0}%",
                file=sys.stderr,
            )
            return 1
        if error := kernel_set_ets(current, prio_tc, tsa, tc_bw):
            print(f"Error: {error}", file=sys.stderr)
            return 1
    return 0


def ethtool(state: dict, args: list[str]) -> int:
    current = nic(state, args[1])
    if args[0] == "-a":
        print(f"Pause parameters for {args[1]}:")
        print("Autonegotiate:\toff")
        print(f"RX:\t\t{'on' if current['pause_rx'] else 'off'}")
        print(f"TX:\t\t{'on' if current['pause_tx'] else 'off'}")
    elif args[0] == "-A":
        current["pause_rx"] = args[args.index("rx") + 1] == "on"
        current["pause_tx"] = args[args.index("tx") + 1] == "on"
    return 0


def ip(state: dict, args: list[str]) -> int:
    netdev, mtu = args[args.index("dev") + 1], args[args.index("mtu") + 1]
    nic(state, netdev)
    Path(os.environ["GPUNET_FAKE_SYSFS"], "class", "net", netdev, "mtu").write_text(mtu + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
