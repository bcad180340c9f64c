"""STAND-IN for the NIC tools of a host with RDMA NICs (none exist on the test machines).

One script plays mlnx_qos, dcb, ethtool and ip (chosen by the first argument). It keeps the NICs'
state in the JSON file $GPUNET_FAKE_STATE, appends every call to $GPUNET_FAKE_CALLS (one JSON list
per line), and prints mlnx_qos's output in the real tool's format (see
../shared/samples/mlnx_qos_att-netarbiter_1.txt). `ip link set dev X mtu N` writes the fake sysfs
tree under $GPUNET_FAKE_SYSFS, as the kernel would.
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


def mlnx_qos(state: dict, args: list[str]) -> int:
    netdev = args[args.index("-i") + 1]
    current = nic(state, netdev)
    for flag, value in itertools.pairwise(args):
        if flag == "--trust":
            current["trust"] = value
        elif flag == "--pfc":
            current["pfc"] = [int(v) for v in value.split(",")]
        elif flag == "--dscp2prio":
            _, dscp, prio = value.split(",")
            current.setdefault("dscp2prio", {})[dscp] = int(prio)
    print("DCBX mode: OS controlled")
    print(f"Priority trust state: {current['trust']}")
    print("dscp2prio mapping:")
    table: dict[int, list[int]] = {p: [] for p in range(8)}
    for dscp in range(63, -1, -1):
        table[int(current.get("dscp2prio", {}).get(str(dscp), dscp >> 3))].append(dscp)
    for prio, dscps in table.items():
        print(f"        prio:{prio} dscp:" + "".join(f"{d:02d}," for d in dscps))
    print("Cable len: 7")
    print("PFC configuration:")
    print("        priority    0   1   2   3   4   5   6   7")
    print("        enabled     " + "   ".join(str(v) for v in current["pfc"]) + "   ")
    return 0


# Like iproute2's dcb, which prints a DSCP by its rt_dsfield name where one exists (dcb_app.c).
RT_DSFIELD_NAMES = {0: "CS0", 8: "CS1", 10: "AF11", 26: "AF31", 34: "AF41", 46: "EF", 48: "CS6", 56: "CS7"}


def dcb(state: dict, args: list[str]) -> int:
    obj, verb, netdev = args[0], args[1], args[3]
    current = nic(state, netdev)
    if obj == "pfc" and verb == "show":
        print("prio-pfc " + " ".join(f"{p}:{'on' if v else 'off'}" for p, v in enumerate(current["pfc"])))
    elif obj == "pfc" and verb == "set":
        for item in args[5:]:
            prio, value = item.split(":")
            current["pfc"][int(prio)] = int(value == "on")
    elif obj == "app" and verb == "show":
        app = sorted(current.get("app", {}).items(), key=lambda item: int(item[0]))
        print("dscp-prio " + " ".join(f"{RT_DSFIELD_NAMES.get(int(d), d)}:{p}" for d, p in app))
    elif obj == "app" and verb == "replace":
        for item in args[5:]:
            dscp, prio = item.split(":")
            current.setdefault("app", {})[dscp] = int(prio)
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
