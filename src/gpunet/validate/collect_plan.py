"""What the verify roles run, computed in Python (the roles only loop over these lists).

Inputs are the plain inventory values the play sees (`gpunet_nics` per host), so the same
schedule comes out here as in the manifest that gpunet-validate writes (`pairs.schedule`).
"""

from __future__ import annotations

import shlex
from typing import Any

from gpunet.validate.pairs import RING, ring_rounds, schedule

# perftest's default out-of-band TCP port. Rails run at once and a host may serve several, so
# rail r uses base + r: a host firewall must open base .. base + rails - 1 from the fabric.
PERFTEST_BASE_PORT = 18515


def host_commands(nics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The read-only commands of the host collection: file stem (the `gpunet parse` tool) and argv."""
    commands = [
        {"file": "ibstat", "argv": ["ibstat"]},
        {"file": "ibv_devinfo", "argv": ["ibv_devinfo", "-v"]},
        {"file": "nvidia-smi-q", "argv": ["nvidia-smi", "-q"]},
        {"file": "nvidia-smi-topo", "argv": ["nvidia-smi", "topo", "-m"]},
        {"file": "chronyc-tracking", "argv": ["chronyc", "tracking"]},
        {"file": "nft-ruleset", "argv": ["nft", "-j", "list", "ruleset"]},
        {"file": "nccl-conf", "argv": ["cat", "/etc/nccl.conf"]},
        {"file": "lsmod", "argv": ["lsmod"]},
        {"file": "lspci-acs", "argv": ["sh", "-c", LSPCI_ACS_SCRIPT]},
        # LLDP neighbours of every interface (lldpd's client; the cabling check reads them).
        {"file": "lldpctl-json", "argv": ["lldpctl", "-f", "json"]},
    ]
    for nic in nics:
        commands.append({"file": f"mlnx_qos.{nic['netdev']}", "argv": ["mlnx_qos", "-i", nic["netdev"]]})
        # The netdev's live MTU (iproute2's JSON; the link_qos check compares it with the leaf port's).
        ip_link = ["ip", "-j", "link", "show", "dev", nic["netdev"]]
        commands.append({"file": f"ip-link-json.{nic['netdev']}", "argv": ip_link})
        sysfs = f"/sys/class/infiniband/{nic['name']}/tc/1/traffic_class"
        commands.append({"file": f"traffic-class.{nic['name']}", "argv": ["cat", sysfs]})
        commands.append(
            {"file": f"roce-gids.{nic['name']}", "argv": ["sh", "-c", GID_TABLE_SCRIPT, "sh", nic["name"]]}
        )
        commands.append(
            {
                "file": f"mstconfig-lldp.{nic['name']}",
                "argv": ["sh", "-c", MSTCONFIG_LLDP_SCRIPT, "sh", nic["name"]],
            }
        )
    return commands


# `lspci -vvv`, reduced to what the ACS check reads: each device's first line and its ACSCtl line,
# in lspci's order (the same lines, so `gpunet parse lspci-acs` reads either). The whole output is
# 50 to 100 lines a device, about 1 MB on an HGX host: 4 GB a 4,096-host collection would carry and
# parse for a few hundred lines a host. lspci's own exit status is kept (127 where it is missing).
LSPCI_ACS_SCRIPT = 'out=$(lspci -vvv) || exit; printf "%s\\n" "$out" | awk \'/^[0-9a-fA-F]/ || /ACSCtl:/\''

# Prints `<index> <gid> <type> <netdev>` per GID table entry of port 1 of RDMA device $1 (sysfs
# below $2, default /sys/class/infiniband;
# read-only; unused entries have no type and are dropped by the `roce-gids` parser).
GID_TABLE_SCRIPT = (
    'd=${2:-/sys/class/infiniband}/$1/ports/1; [ -d "$d/gids" ] || { echo "no GID table: $d" >&2; exit 1; }; '
    'for g in "$d"/gids/*; do n=${g##*/}; '
    'printf "%s %s %s %s\\n" "$n" "$(cat "$g" 2>/dev/null)" '
    '"$(cat "$d/gid_attrs/types/$n" 2>/dev/null | tr " " _)" "$(cat "$d/gid_attrs/ndevs/$n" 2>/dev/null)"; '
    "done"
)

# The NIC firmware's LLDP agent settings of RDMA device $1 (sysfs below $2, default
# /sys/class/infiniband): its PCI function is the basename of `<dev>/device`, and `mstconfig -d
# <bdf> query <PARAM>...` prints only the named parameters. mstconfig is mstflint's (the open-source
# `mstflint` package of Debian, Ubuntu and RHEL, which rdma_tools installs), not NVIDIA MFT's
# mlxconfig, which prints the same table but is not in the distributions. A parameter the device
# lacks fails the whole query (`-E- The Device doesn't support ... parameter`, mstflint b9d9e84
# mlxconfig/mlxcfg_generic_commander.cpp queryParamViews), so port 2's parameters are asked for
# apart and only their rows kept (a single-port NIC has none). mstconfig's exit status of the port 1
# query is kept (127 where it is missing). Read-only: `query` reads the next-boot values.
MSTCONFIG_LLDP_PARAMETERS = ("LLDP_NB_RX_MODE", "LLDP_NB_TX_MODE", "LLDP_NB_DCBX")
MSTCONFIG_LLDP_SCRIPT = (
    'd=${2:-/sys/class/infiniband}/$1/device; b=$(readlink -f "$d") && [ -e "$b" ] '
    '|| { echo "no PCI device: $d" >&2; exit 1; }; b=${b##*/}; '
    f'mstconfig -d "$b" query {" ".join(f"{p}_P1" for p in MSTCONFIG_LLDP_PARAMETERS)} || exit; '
    f'mstconfig -d "$b" query {" ".join(f"{p}_P2" for p in MSTCONFIG_LLDP_PARAMETERS)} 2>/dev/null '
    "| awk '/^[ *]/ && /LLDP_NB_/'; exit 0"
)


def required_gid_indexes(outputs: list[dict[str, Any]], nics: list[dict[str, Any]]) -> dict[str, int]:
    """NIC -> the `-x` perftest needs, from this host's collected GID tables (only where needed)."""
    from gpunet.validate.gid_index import required_index
    from gpunet.validate.parsers import ParseError, parse

    addresses = {nic["name"]: str(nic["ip"]) for nic in nics}
    indexes: dict[str, int] = {}
    for output in outputs:
        file = output.get("item", {}).get("file", "")
        nic = file.removeprefix("roce-gids.")
        if not file.startswith("roce-gids.") or nic not in addresses or output.get("rc") != 0:
            continue
        try:
            gids = parse("roce-gids", output.get("stdout", ""))["gids"]
        except ParseError:
            continue  # the roce_gid_index check reports the unreadable table
        index = required_index(gids, addresses[nic])
        if index is not None:
            indexes[nic] = index
    return indexes


def pair_rounds(
    nics_by_host: dict[str, list[dict[str, Any]]],
    host: str,
    tool: str,
    extra_args: list[str],
    mode: str = RING,
    base_port: int = PERFTEST_BASE_PORT,
    gid_indexes: dict[str, int] | None = None,
) -> list[dict[str, list[dict[str, Any]]]]:
    """Per round, this host's perftest servers and clients. Every host gets the same number of
    rounds (empty where it rests), so the play's hosts move from round to round together.
    `gid_indexes` (NIC -> index) adds `-x` for this host's NICs where perftest's own pick is wrong."""
    gid_indexes = gid_indexes or {}
    hosts_by_rail: dict[int, list[str]] = {}
    for name, nics in nics_by_host.items():
        for nic in nics:
            hosts_by_rail.setdefault(int(nic["rail"]), []).append(name)
    plan = []
    for index, round_ in enumerate(schedule(hosts_by_rail, mode)):
        servers, clients = [], []
        for pair in round_:
            if host not in (pair.client, pair.server):
                continue
            mine = _nic_on_rail(nics_by_host[host], pair.rail)
            port = base_port + pair.rail
            gid = ["-x", str(gid_indexes[mine["name"]])] if mine["name"] in gid_indexes else []
            if host == pair.server:
                servers.append(
                    {"argv": [tool, "-d", mine["name"], "-p", str(port), *gid, *extra_args], "port": port}
                )
                continue
            peer_nic = _nic_on_rail(nics_by_host[pair.server], pair.rail)
            peer_ip = str(peer_nic["ip"]).split("/")[0]
            clients.append(
                {
                    "argv": [tool, "-d", mine["name"], "-p", str(port), *gid, *extra_args, peer_ip],
                    "peer_ip": peer_ip,
                    "port": port,
                    "file": f"pairs/{index}/{pair.client}__{pair.server}__{mine['name']}.{tool}.txt",
                }
            )
        plan.append({"round": index, "servers": servers, "clients": clients})
    return plan


def _nic_on_rail(nics: list[dict[str, Any]], rail: int) -> dict[str, Any]:
    return next(nic for nic in nics if int(nic["rail"]) == rail)


def iperf3_rounds(
    addresses: dict[str, str], host: str, port: int, seconds: int
) -> list[dict[str, list[dict[str, Any]]]]:
    """iperf3 over the host network, a ring in rounds of disjoint pairs like perftest."""
    plan = []
    for index, round_ in enumerate(ring_rounds(sorted(addresses))):
        servers, clients = [], []
        for client, server in round_:
            if host == server:
                servers.append({"argv": ["iperf3", "-s", "-1", "-p", str(port)], "port": port})
            elif host == client:
                clients.append(
                    {
                        "argv": [
                            "iperf3",
                            "-c",
                            addresses[server],
                            "-p",
                            str(port),
                            "-t",
                            str(seconds),
                            "-J",
                        ],
                        "peer_ip": addresses[server],
                        "port": port,
                        "file": f"pairs/iperf3/{client}__{server}.iperf3.txt",
                    }
                )
        plan.append({"round": index, "servers": servers, "clients": clients})
    return plan


def nccl_jobs(
    gpus_by_host: dict[str, int], host: str, launcher: str, binary: str, extra_args: list[str]
) -> list[dict[str, Any]]:
    """nccl-tests runs this host launches: its own single-node run, and (first host) the multi-node one."""
    ordered = sorted(gpus_by_host)
    jobs = [
        {
            "file": f"nccl/single-{host}.txt",
            "argv": [binary, "-g", str(gpus_by_host[host]), *extra_args],
        }
    ]
    if len(ordered) > 1 and host == ordered[0]:
        ranks = sum(gpus_by_host.values())
        if launcher == "srun":
            argv = ["srun", "-N", str(len(ordered)), "-n", str(ranks), "--nodelist", ",".join(ordered)]
        else:
            slots = ",".join(f"{name}:{gpus_by_host[name]}" for name in ordered)
            argv = ["mpirun", "-np", str(ranks), "-H", slots, "-x", "NCCL_DEBUG=WARN", "--bind-to", "numa"]
        jobs.append({"file": "nccl/all-nodes.txt", "argv": [*argv, binary, "-g", "1", *extra_args]})
    return jobs


def raw_output(result: dict[str, Any], command_line: bool = False) -> str:
    """What an artifact file holds for one command result: its stdout and stderr as printed, and,
    when it produced no output and failed, one line saying which command could not run and why.

    `command_line`: first the command as a shell transcript shows it (`$ ib_write_bw ... --tclass=106
    peer`), for tools whose output does not say how they ran (perftest prints no traffic class)."""
    parts = [result.get("stdout") or "", result.get("stderr") or ""]
    if command_line and result.get("item", {}).get("argv"):
        parts.insert(0, "$ " + shlex.join(str(word) for word in result["item"]["argv"]))
    rc = result.get("rc")
    if not parts[0] and (rc not in (0, None) or result.get("failed")):
        words = result.get("cmd") or result.get("item", {}).get("argv", [])
        command = words if isinstance(words, str) else " ".join(str(word) for word in words)
        parts.append(f"gpunet verify: `{command}` exited {rc}: {result.get('msg') or 'no message'}")
    return "\n".join(part.rstrip("\n") for part in parts if part) + "\n"
