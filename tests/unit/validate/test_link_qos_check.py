"""link_qos, table-driven over the committed healthy artifacts (tests/fixtures/artifacts/generate.py).

Each case changes one recorded capture (a host's mlnx_qos or ip link, a leaf's PFC show) or the manifest's
plan, and states every link whose result is not a plain pass: its status and the words its
message must hold (both ends' values, the fix). Every other link of the four hosts must pass.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.validate.checks import load_selection
from gpunet.validate.judge import judge
from gpunet.validate.results import Status
from gpunet.validate.switch_port_qos import PFC_TOOLS
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
NXOS_LINK = "gpu02:mlx5_0<->leaf01:Ethernet1/2"
EOS_LINK = "gpu01:mlx5_2<->leaf03:Ethernet1/1"
SONIC_LINK = "gpu03:mlx5_5<->leaf06:Ethernet16"
JUNOS_LINKS = [f"gpu0{n}:mlx5_7<->leaf08:et-0/0/{n - 1}" for n in range(1, 5)]
CUMULUS_LINKS = [f"gpu0{n}:mlx5_4<->leaf05:swp{n}s0" for n in range(1, 5)]
JUNOS_NOTE = "leaf08:et-0/0/0 running PFC not shown: profile cnp-3m prints no IEEE 802.1p PFC table"

# Juniper's IEEE 802.1p profile layout (as tests/unit/validate/test_switch_pfc_eos_junos.py):
# PFC enabled on code points 3 and 4.
JUNOS_8021P = "Type: Input, Name: cnp-3m, Index: 60001\nPriority     PFC\n" + "".join(
    f"  {p:03b}          {'Enabled' if p in (3, 4) else 'Disabled'}\n" for p in range(8)
)


def copy_inputs(folder: Path) -> None:
    """The files link_qos reads (the manifest, the NICs' mlnx_qos and ip link, the leaves' PFC shows
    after the tests), not the whole folder: the copy is most of a case's time."""
    keep = (
        "manifest.json",
        "mlnx_qos.",
        "ip-link-json.",
        *(f"{tool}.txt" for tools in PFC_TOOLS.values() for tool in tools),
    )
    shutil.copytree(
        HEALTHY,
        folder,
        ignore=lambda where, names: [
            name for name in names if not (Path(where, name).is_dir() or name.startswith(keep))
        ],
    )


def edit(relative: str, old: str, new: str, count: int = 1) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / relative
        text = path.read_text()
        assert text.count(old) >= count, f"{relative} lacks {old!r}"
        path.write_text(text.replace(old, new, count))

    return apply


def write(relative: str, text: str) -> Callable[[Path], None]:
    return lambda folder: (folder / relative).write_text(text)


def remove(relative: str) -> Callable[[Path], None]:
    return lambda folder: (folder / relative).unlink()


def lossy(switch: str, port: str) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        path = folder / "manifest.json"
        document = json.loads(path.read_text())
        document["switches"][switch]["lossless_ports"].remove(port)
        path.write_text(json.dumps(document))

    return apply


def host_qos(host: str, netdev: str) -> str:
    return f"hosts/{host}/mlnx_qos.{netdev}.txt"


def host_link(host: str, netdev: str) -> str:
    return f"hosts/{host}/ip-link-json.{netdev}.txt"


def port_mtu(host: str, nic: str, mtu: int) -> Callable[[Path], None]:
    """The manifest's rendered MTU of the leaf port `host`'s `nic` is cabled to."""

    def apply(folder: Path) -> None:
        path = folder / "manifest.json"
        document = json.loads(path.read_text())
        (found,) = [n for n in document["hosts"][host]["nics"] if n["name"] == nic]
        found["switch_port_mtu"] = mtu
        path.write_text(json.dumps(document))

    return apply


PFC_LINE = "enabled     0   0   0   1   0   0   0   0"
# (case, change, {link: (status, words its message holds)}); links not named pass with no message
# (leaf08's Junos profiles print no 802.1p table: those pass with the note that says so).
CASES: list[tuple[str, Callable[[Path], None] | None, dict[str, tuple[Status, list[str]]]]] = [
    ("as planned", None, {}),
    (
        "host PFC on an extra priority",
        edit(host_qos("gpu02", "enp24s0np0"), PFC_LINE, "enabled     0   0   0   1   1   0   0   0"),
        {
            NXOS_LINK: (
                Status.FAIL,
                ["PFC: gpu02:enp24s0np0 on [3,4], leaf01:Ethernet1/2 rendered on [3]", "rerun roce_host"],
            )
        },
    ),
    (
        "host PFC off",
        edit(host_qos("gpu01", "enp58s0np0"), PFC_LINE, "enabled     0   0   0   0   0   0   0   0"),
        {EOS_LINK: (Status.FAIL, ["gpu01:enp58s0np0 on [], leaf03:Ethernet1/1 rendered on [3]"])},
    ),
    (
        "host trusts PCP",
        edit(host_qos("gpu01", "enp58s0np0"), "Priority trust state: dscp", "Priority trust state: pcp"),
        {EOS_LINK: (Status.FAIL, ["trust: gpu01:enp58s0np0 pcp, leaf03:Ethernet1/1 rendered dscp"])},
    ),
    (
        "host maps the RoCE DSCP to another priority",
        lambda folder: (
            edit(host_qos("gpu03", "enp171s0np0"), "29,28,27,26,25,24,", "29,28,27,25,24,")(folder),
            edit(host_qos("gpu03", "enp171s0np0"), "prio:4 dscp:39,", "prio:4 dscp:26,39,")(folder),
        ),
        {
            SONIC_LINK: (
                Status.FAIL,
                ["DSCP 26: gpu03:enp171s0np0 -> priority 4, leaf06:Ethernet16 rendered -> priority 3"],
            )
        },
    ),
    (
        "host maps the CNP DSCP to another priority",
        lambda folder: (
            edit(host_qos("gpu03", "enp171s0np0"), "50,49,48,", "50,49,")(folder),
            edit(host_qos("gpu03", "enp171s0np0"), "prio:7 dscp:63,", "prio:7 dscp:48,63,")(folder),
        ),
        {SONIC_LINK: (Status.FAIL, ["DSCP 48: gpu03:enp171s0np0 -> priority 7", "rendered -> priority 6"])},
    ),
    (
        "host's lossless class has another share",
        edit(host_qos("gpu01", "enp58s0np0"), "tsa: ets, bw: 60%", "tsa: ets, bw: 50%"),
        {
            EOS_LINK: (
                Status.FAIL,
                ["ETS: gpu01:enp58s0np0 lossless class tc3 ets 50%, queue plan tc3 ets 60%"],
            )
        },
    ),
    (
        "NX-OS leaf pauses on an extra priority",
        edit(
            "switches/leaf01/after/nxos-show-interface-pfc.txt",
            "Ethernet1/2        On   On  (8) ",
            "Ethernet1/2        On   On  (18)",
        ),
        {
            NXOS_LINK: (
                Status.FAIL,
                [
                    "PFC: leaf01:Ethernet1/2 running on [3,4], rendered on [3], gpu02:enp24s0np0 on [3]",
                    "playbooks/switches.yml --limit leaf01",
                ],
            )
        },
    ),
    (
        "NX-OS leaf port with PFC oper off",
        edit(
            "switches/leaf01/after/nxos-show-interface-pfc.txt",
            "Ethernet1/2        On   On ",
            "Ethernet1/2        On   Off",
        ),
        {NXOS_LINK: (Status.FAIL, ["leaf01:Ethernet1/2 running on [], rendered on [3]"])},
    ),
    (
        "EOS leaf port with PFC disabled",
        edit("switches/leaf03/after/eos-show-pfc.txt", "Et1/1       Yes ", "Et1/1       No  "),
        {EOS_LINK: (Status.FAIL, ["leaf03:Ethernet1/1 running on [], rendered on [3]"])},
    ),
    (
        "EOS leaf with PFC off globally",
        edit("switches/leaf03/after/eos-show-pfc.txt", "Global PFC : Enabled", "Global PFC : Disabled"),
        {
            f"gpu0{n}:mlx5_2<->leaf03:Ethernet{n}/1": (Status.FAIL, ["(Global PFC : Disabled)"])
            for n in range(1, 5)
        },
    ),
    (
        "SONiC leaf port without its lossless priority",
        edit("switches/leaf06/after/sonic-show-pfc-priority.txt", "Ethernet16   3", "Ethernet16   4"),
        {SONIC_LINK: (Status.FAIL, ["leaf06:Ethernet16 running on [4], rendered on [3]"])},
    ),
    (
        "SONiC leaf port not listed",
        edit("switches/leaf06/after/sonic-show-pfc-priority.txt", "Ethernet16   3\n", ""),
        {SONIC_LINK: (Status.PASS, ["leaf06:Ethernet16 running PFC not shown: port not listed"])},
    ),
    (
        "SONiC leaf capture missing: judged against the rendered intent, said so",
        remove("switches/leaf06/after/sonic-show-pfc-priority.txt"),
        {
            f"gpu0{n}:mlx5_5<->leaf06:Ethernet{8 * (n - 1)}": (Status.PASS, ["leaf06 running QoS not read"])
            for n in range(1, 5)
        },
    ),
    (
        "Cumulus leaf trusts PCP alone and pauses on another priority",
        lambda folder: (
            edit("switches/leaf05/after/cumulus-nv-show-qos-roce.txt", "pcp,dscp", "pcp      ")(folder),
            edit(
                "switches/leaf05/after/cumulus-nv-show-qos-roce.txt",
                "pfc-priority      3",
                "pfc-priority      4",
            )(folder),
        ),
        {
            link: (
                Status.FAIL,
                [
                    f"trust: {link.split('<->')[1]} running pcp, rendered dscp",
                    "running on [4], rendered on [3]",
                ],
            )
            for link in CUMULUS_LINKS
        },
    ),
    (
        "Junos profile with an 802.1p table enabling an extra priority",
        write("switches/leaf08/after/junos-show-cos-congestion-notification.txt", JUNOS_8021P),
        {
            link: (Status.FAIL, [f"{link.split('<->')[1]} running on [3,4], rendered on [3]"])
            for link in JUNOS_LINKS
        },
    ),
    (
        "Junos port's profile not listed",
        edit(
            "switches/leaf08/after/junos-show-cos-interface.txt",
            "Enabled, Name: cnp-3m, Index: 60001",
            "Enabled, Name: cnp-gone, Index: 60009",
        ),
        {
            JUNOS_LINKS[0]: (
                Status.PASS,
                ["leaf08:et-0/0/0 running PFC not shown: input profile cnp-gone not in show class-of"],
            )
        },
    ),
    (
        "plan: the leaf port is lossy",
        lossy("leaf07", "Ethernet0"),
        {
            "gpu01:mlx5_6<->leaf07:Ethernet0": (
                Status.FAIL,
                [
                    "plan: leaf07:Ethernet0 is lossy while gpu01:enp186s0np0 runs PFC on [3]",
                    "mark leaf07:Ethernet0 lossless in the inventory",
                    "leaf07:Ethernet0 running on [3], rendered on []",
                ],
            )
        },
    ),
    (
        "host capture missing",
        remove(host_qos("gpu04", "enp24s0np0")),
        {"gpu04:mlx5_0<->leaf01:Ethernet1/4": (Status.ERROR, ["mlnx_qos.enp24s0np0"])},
    ),
    (
        "host MTU above the EOS leaf's rendered 9214 (EOS's maximum) and not host_mtu",
        edit(host_link("gpu01", "enp58s0np0"), '"mtu":9000', '"mtu":9216'),
        {
            EOS_LINK: (
                Status.FAIL,
                [
                    "MTU: gpu01:enp58s0np0 9216 above leaf03:Ethernet1/1 rendered 9214 (the leaf drops",
                    "MTU: gpu01:enp58s0np0 9216, the inventory's host_mtu 9000; fix: rerun roce_host"
                    " (playbooks/roce_hosts.yml --limit gpu01)",
                ],
            )
        },
    ),
    (
        "host MTU left at 1500",
        edit(host_link("gpu02", "enp24s0np0"), '"mtu":9000', '"mtu":1500'),
        {
            NXOS_LINK: (
                Status.FAIL,
                [
                    "MTU: gpu02:enp24s0np0 1500, the inventory's host_mtu 9000 (leaf01:Ethernet1/2"
                    " rendered 9216); fix: rerun roce_host (playbooks/roce_hosts.yml --limit gpu02)"
                ],
            )
        },
    ),
    (
        "plan: the leaf port's rendered MTU is below host_mtu",
        port_mtu("gpu01", "mlx5_2", 8192),
        {
            EOS_LINK: (
                Status.FAIL,
                [
                    "MTU: gpu01:enp58s0np0 9000 above leaf03:Ethernet1/1 rendered 8192",
                    "fix: lower gpunet_fabric.host_mtu to at most 8192 (the leaf port's rendered MTU)",
                ],
            )
        },
    ),
    (
        "host MTU at the leaf port's rendered MTU but not host_mtu",
        lambda folder: (
            port_mtu("gpu03", "mlx5_5", 9000)(folder),
            edit(host_link("gpu03", "enp171s0np0"), '"mtu":9000', '"mtu":4200')(folder),
        ),
        {SONIC_LINK: (Status.FAIL, ["MTU: gpu03:enp171s0np0 4200, the inventory's host_mtu 9000"])},
    ),
    (
        "MTU capture missing: the rest judged, said so",
        remove(host_link("gpu03", "enp171s0np0")),
        {
            SONIC_LINK: (
                Status.PASS,
                ["MTU not judged: hosts/gpu03/ip-link-json.enp171s0np0.txt was not collected"],
            )
        },
    ),
    (
        "MTU capture holds ip's error",
        write(host_link("gpu03", "enp171s0np0"), 'Device "enp171s0np0" does not exist.\n'),
        {SONIC_LINK: (Status.PASS, ["MTU not judged: ", "not a JSON array"])},
    ),
    (
        "MTU capture of another netdev",
        edit(host_link("gpu03", "enp171s0np0"), '"ifname":"enp171s0np0"', '"ifname":"enp170s0np0"'),
        {SONIC_LINK: (Status.PASS, ["MTU not judged: ip-link-json.enp171s0np0 lists no enp171s0np0"])},
    ),
    (
        "MTU capture without an mtu (ip -br)",
        edit(host_link("gpu03", "enp171s0np0"), '"mtu":9000,', ""),
        {SONIC_LINK: (Status.PASS, ["ip-link-json.enp171s0np0 prints no mtu for enp171s0np0"])},
    ),
    (
        "MTU capture missing beside a host QoS mismatch: both said",
        lambda folder: (
            remove(host_link("gpu01", "enp58s0np0"))(folder),
            edit(host_qos("gpu01", "enp58s0np0"), "Priority trust state: dscp", "Priority trust state: pcp")(
                folder
            ),
        ),
        {
            EOS_LINK: (
                Status.FAIL,
                ["trust: gpu01:enp58s0np0 pcp", "(MTU not judged: hosts/gpu01/ip-link-json"],
            )
        },
    ),
]


@pytest.mark.parametrize(("change", "expected"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_link_qos(
    tmp_path: Path, change: Callable[[Path], None] | None, expected: dict[str, tuple[Status, list[str]]]
) -> None:
    folder = tmp_path / "artifacts"
    copy_inputs(folder)
    if change:
        change(folder)
    results = {
        r.target: r for r in judge(folder, load_selection("link_qos")).results if r.check == "link_qos"
    }
    assert len(results) == 32  # every NIC of the four hosts, one result per link
    for target, result in results.items():
        if target in expected:
            status, words = expected[target]
            assert result.status == status, (target, result.message)
            for word in words:
                assert word in result.message, (target, word, result.message)
        elif target == JUNOS_LINKS[0]:
            assert (result.status, result.message) == (Status.PASS, JUNOS_NOTE)
        elif target.split("<->")[1].startswith("leaf08"):
            assert result.status == Status.PASS and "prints no IEEE 802.1p PFC table" in result.message
        else:
            assert (result.status, result.message) == (Status.PASS, ""), target


def test_manifest_without_cnp_judges_the_roce_dscp_alone(tmp_path: Path) -> None:
    """A manifest written before the CNP's DSCP was recorded: only the RoCE DSCP is compared."""
    folder = tmp_path / "artifacts"
    copy_inputs(folder)
    document = json.loads((folder / "manifest.json").read_text())
    del document["cnp_dscp"], document["cnp_priority"]
    (folder / "manifest.json").write_text(json.dumps(document))
    edit(host_qos("gpu03", "enp171s0np0"), "50,49,48,", "50,49,")(folder)
    results = [r for r in judge(folder, load_selection("link_qos")).results if r.target == SONIC_LINK]
    assert [(r.status, "DSCP 48" in r.expected) for r in results] == [(Status.PASS, False)]


# (case, manifest fields removed, the EOS link's status with gpu01's netdev at 9216)
OLD_MANIFESTS = [
    ("no MTU recorded: not judged", ("host_mtu", "switch_port_mtu"), Status.PASS),
    ("host_mtu alone: judged against it", ("switch_port_mtu",), Status.FAIL),
    ("port MTU alone: judged against it", ("host_mtu",), Status.FAIL),
]


@pytest.mark.parametrize(
    ("removed", "status"), [c[1:] for c in OLD_MANIFESTS], ids=[c[0] for c in OLD_MANIFESTS]
)
def test_manifest_without_mtus_judges_what_it_holds(
    tmp_path: Path, removed: tuple[str, ...], status: Status
) -> None:
    folder = tmp_path / "artifacts"
    copy_inputs(folder)
    document = json.loads((folder / "manifest.json").read_text())
    for name in removed:
        if name == "host_mtu":
            del document["host_mtu"]
        else:
            for host in document["hosts"].values():
                for nic in host["nics"]:
                    del nic[name]
    (folder / "manifest.json").write_text(json.dumps(document))
    edit(host_link("gpu01", "enp58s0np0"), '"mtu":9000', '"mtu":9216')(folder)
    results = [r for r in judge(folder, load_selection("link_qos")).results if r.target == EOS_LINK]
    assert [r.status for r in results] == [status]
    assert ("MTU" in results[0].message) == (status == Status.FAIL)


# (case, gpu01's MTU in the manifest (its roce_host_mtu, or host_mtu), gpu01's live netdev MTUs
#  except the EOS link's, the EOS link's live MTU, {status of gpu01's links: words of each message})
HOST_MTUS = [
    ("the host's own MTU, set on every netdev", 4200, 4200, 4200, {Status.PASS: [""]}),
    (
        "the host's own MTU, the netdevs left at host_mtu",
        4200,
        9000,
        9000,
        {Status.FAIL: ["MTU: gpu01:", " 9000, the inventory's roce_host_mtu 4200", "fix: rerun roce_host"]},
    ),
    ("left alone (0): any MTU the leaf takes", 0, 1500, 9000, {Status.PASS: [""]}),
    (
        "left alone (0), one netdev above its leaf port",
        0,
        9000,
        9216,
        {
            Status.PASS: [""],
            Status.FAIL: [
                "MTU: gpu01:enp58s0np0 9216 above leaf03:Ethernet1/1 rendered 9214",
                "fix: set gpu01's roce_host_mtu to at most 9214",
            ],
        },
    ),
    ("the fabric's host_mtu written per host", 9000, 9000, 9000, {Status.PASS: [""]}),
]


@pytest.mark.parametrize(
    ("host_mtu", "live", "eos_live", "expected"), [c[1:] for c in HOST_MTUS], ids=[c[0] for c in HOST_MTUS]
)
def test_a_hosts_own_roce_host_mtu_is_what_its_netdevs_are_judged_by(
    tmp_path: Path, host_mtu: int, live: int, eos_live: int, expected: dict[Status, list[str]]
) -> None:
    folder = tmp_path / "artifacts"
    copy_inputs(folder)
    document = json.loads((folder / "manifest.json").read_text())
    document["hosts"]["gpu01"]["mtu"] = host_mtu
    (folder / "manifest.json").write_text(json.dumps(document))
    for capture in (folder / "hosts" / "gpu01").glob("ip-link-json.*.txt"):
        mtu = eos_live if capture.name == "ip-link-json.enp58s0np0.txt" else live
        capture.write_text(capture.read_text().replace('"mtu":9000', f'"mtu":{mtu}'))
    results = [
        r
        for r in judge(folder, load_selection("link_qos")).results
        if r.check == "link_qos" and r.target.startswith("gpu01:") and r.target != JUNOS_LINKS[0]
    ]
    assert len(results) == 7  # gpu01's links but the Junos one, whose pass carries its note
    assert {r.status for r in results} == set(expected)
    for result in results:
        for word in expected[result.status]:
            assert word in result.message, (result.target, word, result.message)
    if Status.FAIL in expected and Status.PASS in expected:
        assert [r.target for r in results if r.status == Status.FAIL] == [EOS_LINK]
