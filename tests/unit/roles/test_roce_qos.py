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
