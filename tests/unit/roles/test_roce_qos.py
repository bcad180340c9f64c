"""gpunet.fabric.roce_qos against a fake sysfs/configfs tree and STAND-IN NIC tools.

No RDMA NIC exists on the test machines, so the module runs against a fake tree under tmp_path
and fake_nic_tools.py playing mlnx_qos, dcb, ethtool and ip (recording every call). The parsers
also run over the real mlnx_qos output in ../shared/samples.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import pytest

from gpunet.hosts.settings import nic_ets
from gpunet.validate.parsers.mlnx_qos import parse_mlnx_qos as parse_verify_mlnx_qos
from tests.conftest import REPO_ROOT, sample_files

_spec = importlib.util.spec_from_file_location("roce_qos", REPO_ROOT / "plugins/modules/roce_qos.py")
assert _spec and _spec.loader
roce_qos = importlib.util.module_from_spec(_spec)
sys.modules["roce_qos"] = roce_qos
_spec.loader.exec_module(roce_qos)

FAKE_TOOLS = Path(__file__).with_name("fake_nic_tools.py")
WANT = roce_qos.Desired(
    lossless_priorities=frozenset({3}),
    dscp_priority={26: 3, 48: 6},
    traffic_class=106,
    cnp_dscp=48,
    cnp_priority=6,
    mtu=9000,
)
NICS = [{"name": "mlx5_0", "netdev": "rail0"}, {"name": "mlx5_1", "netdev": "rail1"}]


@dataclass
class FakeNic:
    """One NIC's starting state; the defaults are a fresh ConnectX after boot."""

    driver: str = "mlx5_core"
    trust: str = "pcp"
    pfc: list[int] = field(default_factory=lambda: [0] * 8)
    dscp2prio: dict[str, int] = field(default_factory=dict)
    app: dict[str, int] = field(default_factory=dict)
    pause: bool = True
    mtu: int = 1500
    traffic_class: str = ""
    rdma_cm: dict[str, str] | None = None  # None: device folder not created yet
    dcqcn: bool | None = False  # None: the NIC has no ecn/ sysfs controls
    cnp_dscp: int = 0
    tc_sysfs: bool = True  # False: inbox mlx5, no tc/1/traffic_class
    udev_name: str = ""  # the RDMA device's name when the distribution's udev renamed it
    # mlx5e_ets_init's factory ETS: every class vendor (reported at 100 %), priority 0 on TC 1, 1 on TC 0.
    prio_tc: list[int] = field(default_factory=lambda: [1, 0, 2, 3, 4, 5, 6, 7])
    tsa: list[str] = field(default_factory=lambda: ["vendor"] * 8)
    tc_bw: list[int] = field(default_factory=lambda: [100] * 8)
    cable_len: int = 7  # MLX5E_DEFAULT_CABLE_LEN
    buffer: bool = True  # False: no port buffer control, the driver reports cable length 0


CONFIGURED = FakeNic(
    trust="dscp",
    pfc=[0, 0, 0, 1, 0, 0, 0, 0],
    pause=False,
    mtu=9000,
    traffic_class="Global tclass=106",
    rdma_cm={"default_roce_tos": "106", "default_roce_mode": "RoCE v2"},
    dcqcn=True,
    cnp_dscp=48,
)


class FakeHost:
    def __init__(self, root: Path, nics: dict[str, tuple[str, FakeNic]], monkeypatch: pytest.MonkeyPatch):
        self.sysfs, self.configfs, self.calls_file = root / "sys", root / "config", root / "calls.jsonl"
        self.state_file = root / "state.json"
        (self.configfs / "rdma_cm").mkdir(parents=True)
        bin_dir = root / "bin"
        bin_dir.mkdir()
        for tool in ("mlnx_qos", "dcb", "ethtool", "ip"):
            wrapper = bin_dir / tool
            wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_TOOLS}" {tool} "$@"\n')
            wrapper.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("GPUNET_FAKE_STATE", str(self.state_file))
        monkeypatch.setenv("GPUNET_FAKE_CALLS", str(self.calls_file))
        monkeypatch.setenv("GPUNET_FAKE_SYSFS", str(self.sysfs))
        state: dict[str, Any] = {}
        for netdev, (device, nic) in nics.items():
            self._build(netdev, device, nic)
            state[netdev] = {
                "trust": nic.trust,
                "pfc": nic.pfc,
                "dscp2prio": nic.dscp2prio,
                "app": nic.app,
                "pause_rx": nic.pause,
                "pause_tx": nic.pause,
                "driver": nic.driver,
                "prio_tc": nic.prio_tc,
                "tsa": nic.tsa,
                "tc_bw": nic.tc_bw,
                "cable_len": nic.cable_len,
                "buffer": nic.buffer,
            }
        self.state_file.write_text(json.dumps(state))
        self.calls_file.write_text("")
        self.host = roce_qos.Host(str(self.sysfs), str(self.configfs))

    def _build(self, netdev: str, device: str, nic: FakeNic) -> None:
        net = self.sysfs / "class/net" / netdev
        (net / "device").mkdir(parents=True)
        driver = self.sysfs / "bus/pci/drivers" / nic.driver
        driver.mkdir(parents=True, exist_ok=True)
        (net / "device/driver").symlink_to(driver)
        (net / "mtu").write_text(f"{nic.mtu}\n")
        if nic.dcqcn is not None:
            for point in ("roce_np", "roce_rp"):
                for prio in range(8):
                    path = net / "ecn" / point / "enable" / str(prio)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text("1\n" if nic.dcqcn and prio == 3 else "0\n")
            (net / "ecn/roce_np/cnp_dscp").write_text(f"{nic.cnp_dscp}\n")
            (net / "ecn/roce_np/cnp_802p_prio").write_text("6\n" if nic.dcqcn else "0\n")
        real_device = nic.udev_name or device
        (self.sysfs / "class/infiniband" / real_device).mkdir(parents=True)
        (net / "device/infiniband" / real_device).mkdir(parents=True)
        if nic.tc_sysfs:
            tc = self.sysfs / "class/infiniband" / real_device / "tc/1/traffic_class"
            tc.parent.mkdir(parents=True)
            tc.write_text(nic.traffic_class + "\n")
        if nic.rdma_cm is not None:
            port = self.configfs / "rdma_cm" / device / "ports/1"
            port.mkdir(parents=True)
            for name, value in nic.rdma_cm.items():
                (port / name).write_text(value + "\n")

    def calls(self) -> list[list[str]]:
        return [json.loads(line) for line in self.calls_file.read_text().splitlines()]

    def set_calls(self) -> list[list[str]]:
        """Calls that change something (reads are `mlnx_qos -i X`, `dcb ... show`, `ethtool -a`)."""
        reads = (["ethtool", "-a"],)
        return [
            c
            for c in self.calls()
            if not (c[0] == "mlnx_qos" and len(c) == 3)
            and "show" not in c
            and not any(c[: len(r)] == r for r in reads)
        ]

    def read(self, *parts: str) -> str:
        return Path(self.sysfs, *parts).read_text().strip()


def two_nics(nic: FakeNic) -> dict[str, tuple[str, FakeNic]]:
    return {"rail0": ("mlx5_0", nic), "rail1": ("mlx5_1", nic)}


@dataclass
class Case:
    name: str
    nic: FakeNic
    tool: str
    expected_settings: set[str]  # settings changed on rail0
    expected_set_calls: list[list[str]]  # for rail0


CASES = [
    Case(
        "fresh ConnectX: everything differs",
        FakeNic(),
        "mlnx_qos",
        {
            "trust",
            "pfc",
            "global pause",
            "mtu",
            "mlx5_0 traffic_class",
            "mlx5_0 rdma_cm default_roce_tos",
            "mlx5_0 rdma_cm default_roce_mode",
            "dcqcn roce_np/enable/3",
            "dcqcn roce_rp/enable/3",
            "dcqcn roce_np/cnp_dscp",
            "dcqcn roce_np/cnp_802p_prio",
        },
        [
            ["mlnx_qos", "-i", "rail0", "--trust", "dscp"],
            ["mlnx_qos", "-i", "rail0", "--pfc", "0,0,0,1,0,0,0,0"],
            ["ethtool", "-A", "rail0", "rx", "off", "tx", "off"],
            ["ip", "link", "set", "dev", "rail0", "mtu", "9000"],
        ],
    ),
    Case("already configured: nothing to do", CONFIGURED, "mlnx_qos", set(), []),
    Case(
        "only PFC on the wrong priority",
        FakeNic(**{**CONFIGURED.__dict__, "pfc": [0, 0, 0, 0, 1, 0, 0, 0]}),
        "mlnx_qos",
        {"pfc"},
        [["mlnx_qos", "-i", "rail0", "--pfc", "0,0,0,1,0,0,0,0"]],
    ),
    Case(
        "DSCP 26 remapped away from priority 3",
        FakeNic(**{**CONFIGURED.__dict__, "dscp2prio": {"26": 5}}),
        "mlnx_qos",
        {"dscp 26 priority"},
        [["mlnx_qos", "-i", "rail0", "--dscp2prio", "set,26,3"]],
    ),
    Case(
        "non-ConnectX NIC through iproute2 dcb",
        FakeNic(**{**CONFIGURED.__dict__, "driver": "ice", "pfc": [0] * 8, "dcqcn": None}),
        "auto",
        {"pfc", "dscp map"},
        [
            [
                "dcb",
                "pfc",
                "set",
                "dev",
                "rail0",
                "prio-pfc",
                *[f"{p}:{'on' if p == 3 else 'off'}" for p in range(8)],
            ],
            ["dcb", "app", "replace", "dev", "rail0", "dscp-prio", "26:3", "48:6"],
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_changes_only_what_differs_then_nothing(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHost(tmp_path, two_nics(case.nic), monkeypatch)

    result = roce_qos.configure(fake.host, NICS, WANT, case.tool)

    rail0_lines = [line for line in result["changes"] if line.startswith("rail0 ")]
    rail0 = {line.split(":")[0].removeprefix("rail0 ") for line in rail0_lines}
    assert rail0 == case.expected_settings
    assert [c for c in fake.set_calls() if "rail0" in c] == case.expected_set_calls
    assert result["changed"] is bool(case.expected_settings)
    again = roce_qos.configure(fake.host, NICS, WANT, case.tool)
    assert again["changes"] == []
    assert again["changed"] is False


def test_applied_state_is_what_the_fabric_wants(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos")

    state = json.loads(fake.state_file.read_text())["rail1"]
    assert (state["trust"], state["pfc"], state["pause_rx"], state["pause_tx"]) == (
        "dscp",
        [0, 0, 0, 1, 0, 0, 0, 0],
        False,
        False,
    )
    assert fake.read("class/net/rail1/mtu") == "9000"
    assert fake.read("class/infiniband/mlx5_1/tc/1/traffic_class") == "106"
    assert fake.read("class/net/rail1/ecn/roce_np/enable/3") == "1"
    assert fake.read("class/net/rail1/ecn/roce_rp/enable/4") == "0"
    assert fake.read("class/net/rail1/ecn/roce_np/cnp_dscp") == "48"
    port = fake.configfs / "rdma_cm/mlx5_1/ports/1"
    assert (port / "default_roce_tos").read_text().strip() == "106"
    assert (port / "default_roce_mode").read_text().strip() == "RoCE v2"


def test_check_mode_reports_but_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    before = fake.state_file.read_text()

    result = roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos", check_mode=True)

    assert "rail0 pfc: 0,0,0,0,0,0,0,0 -> 0,0,0,1,0,0,0,0" in result["changes"]
    assert fake.set_calls() == []
    assert fake.state_file.read_text() == before
    assert fake.read("class/net/rail0/mtu") == "1500"
    assert not (fake.configfs / "rdma_cm/mlx5_0").exists()


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        ("class/net/rail1", "NIC mlx5_1: netdev rail1 not found"),
        ("class/infiniband/mlx5_1", "NIC mlx5_1: RDMA device not found"),
    ],
)  # removing class/infiniband/<dev> alone keeps the netdev's link, see the udev test below
def test_missing_nic_fails_before_anything_changes(
    remove: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    targets = [fake.sysfs / remove]
    if remove.startswith("class/infiniband/"):  # the device is gone, so is its netdev's link to it
        targets.append(fake.sysfs / "class/net/rail1/device/infiniband")
    for target in targets:
        for path in sorted(target.rglob("*"), reverse=True):
            path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
        target.rmdir()

    with pytest.raises(roce_qos.NicError, match=message):
        roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos")
    assert fake.set_calls() == []
    assert fake.read("class/net/rail0/mtu") == "1500"


def test_missing_rdma_cm_configfs_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    (fake.configfs / "rdma_cm").rmdir()
    with pytest.raises(roce_qos.NicError, match="rdma_cm is missing"):
        roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos")


def test_inbox_driver_settings_are_reported_as_not_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inbox mlx5: no ecn/ and no tc/1/traffic_class; what it offers is set, the rest is NOT APPLIED."""
    inbox = FakeNic(**{**CONFIGURED.__dict__, "dcqcn": None, "tc_sysfs": False, "pfc": [0] * 8})
    fake = FakeHost(tmp_path, two_nics(inbox), monkeypatch)
    result = roce_qos.configure(fake.host, NICS, WANT, "dcb")
    rail0_missing = [n for n in result["not_applied"] if n.startswith(("rail0 ", "mlx5_0 "))]
    assert [n.split(":")[0] for n in rail0_missing] == [
        "mlx5_0 traffic_class 106",
        "rail0 DCQCN (priorities [3], CNP DSCP 48, priority 6)",
    ]
    assert not any("dcqcn" in change or "traffic_class" in change for change in result["changes"])
    assert any(change.startswith("rail0 pfc") for change in result["changes"])  # what dcb offers is set
    assert not any("traffic_class" in command or "/ecn/" in command for command in result["boot_commands"])


def test_udev_renamed_rdma_device_fails_naming_the_real_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    renamed = FakeNic(**{**CONFIGURED.__dict__, "udev_name": "rocep65s0f0"})
    fake = FakeHost(tmp_path, {"rail0": ("mlx5_0", renamed), "rail1": ("mlx5_1", CONFIGURED)}, monkeypatch)
    with pytest.raises(roce_qos.NicError, match="netdev rail0's RDMA device is rocep65s0f0"):
        roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos")
    assert fake.set_calls() == []


def test_boot_commands_apply_everything_from_scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeHost(tmp_path, two_nics(CONFIGURED), monkeypatch)
    commands = roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos")["boot_commands"]
    assert "mlnx_qos -i rail0 --trust dscp --pfc 0,0,0,1,0,0,0,0" in commands
    assert "ip link set dev rail1 mtu 9000" in commands
    assert f"echo 106 > {fake.sysfs}/class/infiniband/mlx5_0/tc/1/traffic_class" in commands
    assert f"echo 'RoCE v2' > {fake.configfs}/rdma_cm/mlx5_1/ports/1/default_roce_mode" in commands


@pytest.mark.parametrize("sample", sample_files("mlnx_qos_*.txt"), ids=lambda p: p.name)
def test_parse_real_mlnx_qos_output(sample: Path) -> None:
    trust, pfc, dscp_priority = roce_qos.parse_mlnx_qos(sample.read_text())
    assert trust == "dscp"
    assert pfc == [0, 0, 0, 1, 0, 0, 0, 0]
    assert (dscp_priority[26], dscp_priority[48], dscp_priority[0]) == (3, 6, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("106", 106), ("Global tclass=106\n", 106), ("", None), (None, None)],
)
def test_parse_traffic_class(text: str | None, expected: int | None) -> None:
    assert roce_qos.parse_traffic_class(text) == expected


# Real `dcb app show dev X dscp-prio` lines: iproute2 prints rt_dsfield names where they exist.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("dscp-prio 26:3 48:6", {26: 3, 48: 6}),
        ("dscp-prio AF31:3 CS6:6", {26: 3, 48: 6}),
        ("dscp-prio CS0:0 AF31:3 27:3 EF:5 CS6:6", {0: 0, 26: 3, 27: 3, 46: 5, 48: 6}),
        ("dscp-prio af41:4 VA:2 LE:1", {34: 4, 44: 2, 1: 1}),
        ("", {}),
    ],
)
def test_parse_dcb_dscp_numbers_and_names(text: str, expected: dict[int, int]) -> None:
    assert roce_qos.parse_dcb_dscp(text) == expected


def test_parse_dcb_dscp_uses_the_hosts_rt_dsfield_names() -> None:
    rt_dsfield = "# local names\n0x68\troce # lossless\n0xc0 cnp\nbad line x\n"
    names = roce_qos.dscp_names_from_rt_dsfield(rt_dsfield)
    assert names == {"roce": 26, "cnp": 48}
    assert roce_qos.parse_dcb_dscp("dscp-prio roce:3 cnp:6", names) == {26: 3, 48: 6}
    with pytest.raises(ValueError, match="'roce'"):
        roce_qos.parse_dcb_dscp("dscp-prio roce:3")


def test_unreadable_mlnx_qos_output_names_the_nic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    fake.host.run = lambda argv: (0, "garbage\n", "")
    with pytest.raises(roce_qos.NicError, match="rail0: cannot read mlnx_qos output"):
        roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos")


def test_boot_script_alone_brings_a_rebooted_nic_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebooted NIC (fresh state) plus the role's boot script equals the configured NIC.

    The fake configfs already holds ports/1 after boot, as the kernel creates it on mkdir.
    """
    rebooted = FakeNic(rdma_cm={"default_roce_tos": "0", "default_roce_mode": "IB/RoCE v1"})
    fake = FakeHost(tmp_path, two_nics(rebooted), monkeypatch)
    planned = roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos", check_mode=True)
    assert len(planned["changes"]) == 22  # 11 settings on each of the two NICs differ after the reboot
    commands = planned["boot_commands"]
    template = (REPO_ROOT / "roles/roce_host/templates/gpunet-roce-qos.sh.j2").read_text()
    script = tmp_path / "gpunet-roce-qos"
    env = jinja2.Environment(trim_blocks=True, keep_trailing_newline=True)
    script.write_text(
        env.from_string(template).render(ansible_managed="test", roce_host_result={"boot_commands": commands})
    )

    run = subprocess.run(["sh", str(script)], capture_output=True, text=True, check=False)

    assert run.returncode == 0, run.stderr
    assert roce_qos.configure(fake.host, NICS, WANT, "mlnx_qos", check_mode=True)["changes"] == []


# --- Priority -> traffic class map, ETS and cable length (issue 28) ---------------------------------

POLICY = nic_ets({"name": "t"})  # the fabric's default queues: 50 % TC 0, 50 % TC 3, TC 6 strict
ETS_WANT = roce_qos.Desired(
    **{
        **WANT.__dict__,
        "prio_tc": POLICY["prio_tc"],
        "tc_tsa": POLICY["tc_tsa"],
        "tc_bw": POLICY["tc_bw"],
        "cable_length_m": {"rail0": 3, "rail1": 30},
    }
)
# What mlx5 reports after `--prio_tc 0,0,0,3,0,0,6,0 --tsa ets,...,strict,ets --tcbw 50,0,0,50,0,0,0,0`.
CONFIGURED_ETS = FakeNic(
    **{
        **CONFIGURED.__dict__,
        "prio_tc": [0, 0, 0, 3, 0, 0, 6, 0],
        "tsa": ["ets", "ets", "ets", "ets", "ets", "ets", "strict", "ets"],
        "tc_bw": [50, 0, 0, 50, 0, 0, 100, 0],
        "cable_len": 3,
    }
)
MLNX_ETS_ARGV = [
    "--prio_tc",
    "0,0,0,3,0,0,6,0",
    "--tsa",
    "ets,ets,ets,ets,ets,ets,strict,ets",
    "--tcbw",
    "50,0,0,50,0,0,0,0",
]
DCB_ETS_ARGV = [
    "prio-tc",
    *["0:0", "1:0", "2:0", "3:3", "4:0", "5:0", "6:6", "7:0"],
    "tc-tsa",
    *["0:ets", "1:ets", "2:ets", "3:ets", "4:ets", "5:ets", "6:strict", "7:ets"],
    "tc-bw",
    *["0:50", "1:0", "2:0", "3:50", "4:0", "5:0", "6:0", "7:0"],
]


def ets_nic(**changes: Any) -> FakeNic:
    return FakeNic(**{**CONFIGURED_ETS.__dict__, **changes})


def ets_want(**changes: Any) -> Any:
    return roce_qos.Desired(**{**ETS_WANT.__dict__, **changes})


@dataclass
class EtsCase:
    name: str
    nic: FakeNic
    tool: str
    want: Any
    expected_settings: set[str]  # rail0's settings among prio_tc, ets, cable_len that change
    expected_set_calls: list[list[str]]  # rail0's calls that carry ETS or cable-length arguments
    not_applied: list[str] = field(default_factory=list)  # beginnings of rail0's NOT APPLIED lines


ETS_KEYS = ("--prio_tc", "--tsa", "--tcbw", "--cable_len", "ets", "delay")
ETS_CASES = [
    EtsCase(
        "factory mlx5: map, ETS and cable length all differ",
        FakeNic(),
        "mlnx_qos",
        ETS_WANT,
        {"prio_tc", "ets", "cable_len"},
        [
            ["mlnx_qos", "-i", "rail0", "--pfc", "0,0,0,1,0,0,0,0", "--cable_len", "3"],
            ["mlnx_qos", "-i", "rail0", *MLNX_ETS_ARGV],
        ],
    ),
    EtsCase("already as the policy wants", CONFIGURED_ETS, "mlnx_qos", ETS_WANT, set(), []),
    EtsCase(
        "only the cable length differs: sent with the PFC vector, never alone",
        ets_nic(cable_len=7),
        "mlnx_qos",
        ETS_WANT,
        {"cable_len"},
        [["mlnx_qos", "-i", "rail0", "--pfc", "0,0,0,1,0,0,0,0", "--cable_len", "3"]],
    ),
    EtsCase(
        "identity map with the right ETS: only the map differs",
        ets_nic(prio_tc=list(range(8))),
        "mlnx_qos",
        ETS_WANT,
        {"prio_tc"},
        [["mlnx_qos", "-i", "rail0", *MLNX_ETS_ARGV]],
    ),
    EtsCase(
        "CNP class left at vendor: strict wanted",
        ets_nic(tsa=["ets"] * 6 + ["vendor", "ets"]),
        "mlnx_qos",
        ETS_WANT,
        {"ets"},
        [["mlnx_qos", "-i", "rail0", *MLNX_ETS_ARGV]],
    ),
    EtsCase(
        "RoCE class at 60 %: the policy's 50/50 back",
        ets_nic(tc_bw=[40, 0, 0, 60, 0, 0, 100, 0]),
        "mlnx_qos",
        ETS_WANT,
        {"ets"},
        [["mlnx_qos", "-i", "rail0", *MLNX_ETS_ARGV]],
    ),
    EtsCase(
        "cable length absent from the inventory: NOT APPLIED, the NIC keeps its own",
        ets_nic(cable_len=7),
        "mlnx_qos",
        ets_want(cable_length_m={"rail1": 30}),
        set(),
        [],
        ["rail0 cable length: unknown"],
    ),
    EtsCase(
        "cable length turned off: left alone, nothing reported",
        ets_nic(cable_len=7),
        "mlnx_qos",
        ets_want(cable_length_m=None),
        set(),
        [],
    ),
    EtsCase(
        "1000 m: mlx5 would drop it silently, so NOT APPLIED",
        ets_nic(cable_len=7),
        "mlnx_qos",
        ets_want(cable_length_m={"rail0": 1000, "rail1": 30}),
        set(),
        [],
        ["rail0 cable length 1000 m: mlx5 keeps only 1-999 m"],
    ),
    EtsCase(
        "no port buffer control (Cable len: 0): NOT APPLIED",
        ets_nic(buffer=False),
        "mlnx_qos",
        ETS_WANT,
        set(),
        [],
        ["rail0 cable length 3 m: mlnx_qos shows no cable length (Cable len: 0)"],
    ),
    EtsCase(
        "map and ETS left alone: no ETS command at all",
        FakeNic(**{**CONFIGURED.__dict__, "cable_len": 3}),
        "mlnx_qos",
        ets_want(prio_tc=[], tc_tsa=[], tc_bw=[]),
        set(),
        [],
    ),
    EtsCase(
        "non-ConnectX NIC through dcb: one ets command, cable length NOT APPLIED",
        FakeNic(**{**CONFIGURED.__dict__, "driver": "ice", "dcqcn": None}),
        "auto",
        ETS_WANT,
        {"prio_tc", "ets"},
        [["dcb", "ets", "set", "dev", "rail0", *DCB_ETS_ARGV]],
        ["rail0 cable length 3 m: iproute2 dcb has no cable-length setting"],
    ),
    EtsCase(
        "ConnectX through dcb: ETS and the PFC delay mlx5 reads as metres",
        FakeNic(**{**CONFIGURED.__dict__}),
        "dcb",
        ETS_WANT,
        {"prio_tc", "ets", "cable_len"},
        [
            ["dcb", "pfc", "set", "dev", "rail0", "delay", "3"],
            ["dcb", "ets", "set", "dev", "rail0", *DCB_ETS_ARGV],
        ],
    ),
    EtsCase("ConnectX through dcb, already right", CONFIGURED_ETS, "dcb", ETS_WANT, set(), []),
]


@pytest.mark.parametrize("case", ETS_CASES, ids=[c.name for c in ETS_CASES])
def test_map_ets_and_cable_length_change_only_what_differs(
    case: EtsCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHost(tmp_path, two_nics(case.nic), monkeypatch)

    result = roce_qos.configure(fake.host, NICS, case.want, case.tool)

    rail0 = {
        line.split(":")[0].removeprefix("rail0 ") for line in result["changes"] if line.startswith("rail0 ")
    }
    assert rail0 & {"prio_tc", "ets", "cable_len"} == case.expected_settings
    ets_calls = [c for c in fake.set_calls() if "rail0" in c and any(key in c for key in ETS_KEYS)]
    assert ets_calls == case.expected_set_calls
    missing = [n for n in result["not_applied"] if n.startswith("rail0 cable")]
    assert len(missing) == len(case.not_applied)
    assert all(line.startswith(start) for line, start in zip(missing, case.not_applied, strict=True))
    assert roce_qos.configure(fake.host, NICS, case.want, case.tool)["changes"] == []


def test_factory_mlx5_ends_in_the_policy_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake's state after the run, read as mlx5 would report it: every priority lands somewhere."""
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    roce_qos.configure(fake.host, NICS, ETS_WANT, "mlnx_qos")

    state = json.loads(fake.state_file.read_text())
    assert state["rail0"]["prio_tc"] == [0, 0, 0, 3, 0, 0, 6, 0]
    assert state["rail0"]["tsa"][3] == "ets" and state["rail0"]["tc_bw"][3] == 50  # lossless: its own share
    assert state["rail0"]["tsa"][6] == "strict"  # CNP
    assert (state["rail0"]["cable_len"], state["rail1"]["cable_len"]) == (3, 30)
    assert state["rail0"]["pfc"] == [0, 0, 0, 1, 0, 0, 0, 0]  # the cable length did not clear PFC


def test_ets_changes_are_in_the_diff_lines_and_check_mode_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    before = fake.state_file.read_text()

    result = roce_qos.configure(fake.host, NICS, ETS_WANT, "mlnx_qos", check_mode=True)

    assert "rail0 prio_tc: 1,0,2,3,4,5,6,7 -> 0,0,0,3,0,0,6,0" in result["changes"]
    assert "rail0 ets: 0:vendor, 3:vendor, 6:vendor -> 0:ets 50%, 3:ets 50%, 6:strict" in result["changes"]
    assert "rail1 cable_len: 7 m -> 30 m" in result["changes"]
    assert fake.set_calls() == []
    assert fake.state_file.read_text() == before


def test_boot_commands_carry_the_map_ets_and_cable_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHost(tmp_path, two_nics(CONFIGURED_ETS), monkeypatch)
    commands = roce_qos.configure(fake.host, NICS, ETS_WANT, "mlnx_qos")["boot_commands"]
    assert "mlnx_qos -i rail0 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 3" in commands
    assert "mlnx_qos -i rail1 --trust dscp --pfc 0,0,0,1,0,0,0,0 --cable_len 30" in commands
    assert "mlnx_qos -i rail0 " + " ".join(MLNX_ETS_ARGV) in commands
    fake = FakeHost(tmp_path / "dcb", two_nics(CONFIGURED_ETS), monkeypatch)
    commands = roce_qos.configure(fake.host, NICS, ETS_WANT, "dcb")["boot_commands"]
    assert (
        "dcb pfc set dev rail0 prio-pfc "
        + " ".join(f"{p}:{'on' if p == 3 else 'off'}" for p in range(8))
        + " delay 3"
        in commands
    )
    assert "dcb ets set dev rail0 " + " ".join(DCB_ETS_ARGV) in commands


@pytest.mark.parametrize("tool", ["mlnx_qos", "dcb"])
def test_boot_script_brings_back_map_ets_and_cable_length(
    tool: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebooted ConnectX (factory map, vendor ETS, 7 m) plus the boot script equals the configured NIC."""
    rebooted = FakeNic(rdma_cm={"default_roce_tos": "0", "default_roce_mode": "IB/RoCE v1"})
    fake = FakeHost(tmp_path, two_nics(rebooted), monkeypatch)
    planned = roce_qos.configure(fake.host, NICS, ETS_WANT, tool, check_mode=True)
    assert {"rail0 prio_tc", "rail0 ets", "rail0 cable_len"} <= {c.split(":")[0] for c in planned["changes"]}
    template = (REPO_ROOT / "roles/roce_host/templates/gpunet-roce-qos.sh.j2").read_text()
    script = tmp_path / "gpunet-roce-qos"
    env = jinja2.Environment(trim_blocks=True, keep_trailing_newline=True)
    script.write_text(
        env.from_string(template).render(
            ansible_managed="test", roce_host_result={"boot_commands": planned["boot_commands"]}
        )
    )

    run = subprocess.run(["sh", str(script)], capture_output=True, text=True, check=False)

    assert run.returncode == 0, run.stdout + run.stderr
    assert roce_qos.configure(fake.host, NICS, ETS_WANT, tool, check_mode=True)["changes"] == []


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({}, None),
        ({"tc_bw": [40, 0, 0, 50, 0, 0, 0, 0]}, "must sum to 100, got 90"),
        ({"tc_bw": [50, 0, 0, 60, 0, 0, 0, 0]}, "must sum to 100, got 110"),
        ({"tc_bw": [50, 0, 0, 50, 0, 0, 10, 0]}, "must be 0 for strict/vendor traffic classes [6]"),
        ({"tc_bw": []}, "tc_tsa and tc_bw go together"),
        ({"tc_tsa": ["ets"] * 7}, "tc_tsa needs 8"),
        ({"tc_tsa": ["ets"] * 6 + ["cbs", "ets"]}, "tc_tsa needs 8 of strict, ets, vendor"),
        ({"prio_tc": [0, 0, 0, 3, 0, 0, 8, 0]}, "prio_tc needs 8 traffic classes 0-7"),
        ({"cable_length_m": {"rail0": 0}}, "cable_length_m[rail0] must be a whole number of metres >= 1"),
        ({"tc_tsa": ["strict"] * 8, "tc_bw": [0] * 8}, None),  # all strict: no shares to total
    ],
)
def test_ets_problems_name_what_the_tools_would_refuse(changes: dict[str, Any], problem: str | None) -> None:
    problems = roce_qos.ets_problems(ets_want(**changes))
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0], problems


def fake_tool(fake: FakeHost, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(fake.sysfs.parent / "bin" / argv[0]), *argv[1:]], capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("argv", "refusal"),
    [
        # mlnx_qos checks --tcbw against the NIC's current TSA when --tsa is not given (factory: vendor).
        (
            ["mlnx_qos", "-i", "rail0", "--tcbw", "50,0,0,50,0,0,0,0"],
            "ETS BW for a strict/vendor TC must be 0",
        ),
        (["mlnx_qos", "-i", "rail0", "--tsa", "ets,ets", "--tcbw", "50,50"], "tsa list must have 8 items"),
        (["mlnx_qos", "-i", "rail0", *MLNX_ETS_ARGV[:4], "--tcbw", "50,0,0,40,0,0,0,0"], "Invalid argument"),
        (["mlnx_qos", "-i", "rail0", "--tsa", "ets,ets,ets,ets,ets,ets,wrr,ets"], "Bad TSA value"),
        # dcb starts from the current ETS: mlx5's factory 8 x 100 % fails its total-of-100 check.
        (["dcb", "ets", "set", "dev", "rail0", "prio-tc", "all:0"], "tc-bw sum to 800%, expected 0%"),
        (
            ["dcb", "ets", "set", "dev", "rail0", "tc-tsa", "all:ets", "tc-bw", "all:0", "0:50", "3:40"],
            "sum to 90%",
        ),
    ],
)
def test_the_stand_in_refuses_what_the_real_tools_refuse(
    argv: list[str], refusal: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHost(tmp_path, two_nics(FakeNic()), monkeypatch)
    before = json.loads(fake.state_file.read_text())["rail0"]
    done = fake_tool(fake, *argv)
    assert done.returncode == 1
    assert refusal in done.stdout + done.stderr
    after = json.loads(fake.state_file.read_text())["rail0"]
    assert (after["prio_tc"], after["tsa"], after["tc_bw"]) == (
        before["prio_tc"],
        before["tsa"],
        before["tc_bw"],
    )


def test_the_stand_in_keeps_the_real_tools_quirks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeHost(tmp_path, two_nics(ets_nic(cable_len=7)), monkeypatch)
    # mlnx_qos --cable_len alone sends an all-off PFC vector with it.
    assert fake_tool(fake, "mlnx_qos", "-i", "rail0", "--cable_len", "5").returncode == 0
    state = json.loads(fake.state_file.read_text())["rail0"]
    assert (state["cable_len"], state["pfc"]) == (5, [0] * 8)
    # mlx5 drops a cable length of 1000 m or more without an error.
    assert (
        fake_tool(
            fake, "mlnx_qos", "-i", "rail0", "--pfc", "0,0,0,1,0,0,0,0", "--cable_len", "1000"
        ).returncode
        == 0
    )
    assert json.loads(fake.state_file.read_text())["rail0"]["cable_len"] == 5
    # dcb pfc set starts from the current PFC state: a delay alone keeps the vector.
    assert (
        fake_tool(fake, "dcb", "pfc", "set", "dev", "rail0", "prio-pfc", "3:on", "delay", "9").returncode == 0
    )
    assert fake_tool(fake, "dcb", "pfc", "set", "dev", "rail0", "delay", "4").returncode == 0
    state = json.loads(fake.state_file.read_text())["rail0"]
    assert (state["cable_len"], state["pfc"]) == (4, [0, 0, 0, 1, 0, 0, 0, 0])


VALIDATE_OUTPUTS = REPO_ROOT / "tests/unit/validate/outputs"


@pytest.mark.parametrize(
    ("text", "prio_tc", "tcs", "cable"),
    [
        (
            (VALIDATE_OUTPUTS / "mlnx_qos_ets-priority-lines_1.txt").read_text(),
            [0, 0, 0, 3, 0, 0, 6, 0],
            {0: ("ets", 50), 3: ("ets", 50), 6: ("vendor", 0)},
            7,
        ),
        (
            (VALIDATE_OUTPUTS / "mlnx_qos_ets-strict-per-class_1.txt").read_text(),
            list(range(8)),
            {
                0: ("ets", 9),
                1: ("ets", 1),
                2: ("ets", 80),
                3: ("ets", 10),
                **{t: ("strict", 0) for t in range(4, 8)},
            },
            30,
        ),
        (  # older mlnx_qos: all of a class's priorities on one line
            "Cable len: 100\ntc: 0 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  0 1 2 4 5 7\n"
            "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%\n\t priority:  3\n"
            "tc: 6 ratelimit: 10.0 Gbps, tsa: strict\n\t priority:  6\n",
            [0, 0, 0, 3, 0, 0, 6, 0],
            {0: ("ets", 50), 3: ("ets", 50), 6: ("strict", 0)},
            100,
        ),
        ("Priority trust state: pcp\n", [None] * 8, {}, None),  # no ETS lines: nothing known
    ],
)
def test_parse_mlnx_qos_ets(
    text: str, prio_tc: list[int | None], tcs: dict[int, tuple[str, int]], cable: int | None
) -> None:
    state = roce_qos.parse_mlnx_qos_ets(text)
    assert (state.prio_tc, state.tcs, state.cable_length_m) == (prio_tc, tcs, cable)


@pytest.mark.parametrize(
    "path",
    [
        *sorted(VALIDATE_OUTPUTS.glob("mlnx_qos_ets-*.txt")),
        *sample_files("mlnx_qos_*.txt"),
    ],
    ids=lambda p: p.name,
)
def test_module_and_verify_parsers_read_ets_alike(path: Path) -> None:
    """The host module's reading of recorded mlnx_qos output agrees with the verify stage's parser."""
    text = path.read_text()
    verify = parse_verify_mlnx_qos(text)
    ours = roce_qos.parse_mlnx_qos_ets(text)
    assert ours.cable_length_m == verify["cable_length_m"]
    assert {t["tc"]: (t["tsa"], t["bw_percent"] or 0) for t in verify["tcs"]} == ours.tcs
    assert {p: t["tc"] for t in verify["tcs"] for p in t["priorities"]} == dict(enumerate(ours.prio_tc))


@pytest.mark.parametrize("sample", sample_files("mlnx_qos_*.txt"), ids=lambda p: p.name)
def test_real_mlnx_qos_output_shows_the_mlx5_factory_ets(sample: Path) -> None:
    """The recorded host had trust and PFC set but ETS left at mlx5's factory state: what the role fixes."""
    state = roce_qos.parse_mlnx_qos_ets(sample.read_text())
    assert state.prio_tc == [1, 0, 2, 3, 4, 5, 6, 7]
    assert set(state.tcs.values()) == {("vendor", 0)} and len(state.tcs) == 8
    assert state.cable_length_m == 7


@pytest.mark.parametrize(
    ("text", "prio_tc", "tcs"),
    [
        (
            "prio-tc 0:1 1:0 2:2 3:3 4:4 5:5 6:6 7:7 \n"
            "tc-tsa 0:vendor 1:vendor 2:vendor 3:vendor 4:vendor 5:vendor 6:vendor 7:vendor \n"
            "tc-bw 0:100 1:100 2:100 3:100 4:100 5:100 6:100 7:100 \n",
            [1, 0, 2, 3, 4, 5, 6, 7],
            {tc: ("vendor", 0) for tc in range(8)},
        ),
        (
            "prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0\n"
            "tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:strict 7:ets\n"
            "tc-bw 0:50 1:0 2:0 3:50 4:0 5:0 6:0 7:0\n",
            [0, 0, 0, 3, 0, 0, 6, 0],
            {**{tc: ("ets", 0) for tc in range(8)}, 0: ("ets", 50), 3: ("ets", 50), 6: ("strict", 0)},
        ),
    ],
)
def test_parse_dcb_ets(text: str, prio_tc: list[int], tcs: dict[int, tuple[str, int]]) -> None:
    state = roce_qos.parse_dcb_ets(text)
    assert (state.prio_tc, state.tcs) == (prio_tc, tcs)


def test_dcb_ets_and_delay_parsers_on_odd_output() -> None:
    with pytest.raises(ValueError, match="no prio-tc, tc-tsa and tc-bw lines"):
        roce_qos.parse_dcb_ets("willing off ets-cap 8 cbs off\n")
    assert roce_qos.parse_dcb_delay("delay 7 \n") == 7
    assert roce_qos.parse_dcb_delay("") is None
