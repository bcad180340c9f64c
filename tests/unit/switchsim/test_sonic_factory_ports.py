"""The factory PORT table of each SONiC SKU is what sonic-cfggen -k writes from platform.json and
hwsku.json (sonic-buildimage src/sonic-config-engine/portconfig.py, parse_platform_json_file and
BreakoutCfg.get_config), then the t1 preset (admin up, MTU 9100) and db_migrator's
dhcp_rate_limit: the generator's port of portconfig.py, table-driven over the SKUs' own cages."""

from __future__ import annotations

import importlib.util
import json

import pytest

from gpunet.lab.switchsim.factory import SONIC_SKUS, sonic_factory, sonic_supported_speeds
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "sonic-factory-config.py"
spec = importlib.util.spec_from_file_location("sonic_factory_config", SCRIPT)
generator = importlib.util.module_from_spec(spec)
spec.loader.exec_module(generator)

# platform.json cages, verbatim (sonic-buildimage 086b03bd70f9e211aaaf5f6aefe0790b508d2a94,
# device/mellanox/x86_64-nvidia_sn5600-r0/platform.json and device/dell/x86_64-dell_z9864f-r0/platform.json)
SN5600_CAGE = {
    "index": "1,1,1,1,1,1,1,1",
    "lanes": "0,1,2,3,4,5,6,7",
    "breakout_modes": {
        "1x800G[400G,200G,100G,50G,40G,25G,10G]": ["etp1"],
        "2x400G[200G,100G,50G,40G,25G,10G]": ["etp1a", "etp1b"],
        "4x200G[100G,50G,25G,10G]": ["etp1a", "etp1b", "etp1c", "etp1d"],
    },
}
Z9864F_CAGE = {
    "index": "1,1,1,1,1,1,1,1",
    "lanes": "1,2,3,4,5,6,7,8",
    "breakout_modes": {
        "1x800G": ["etp1"], "1x400G(8)": ["etp1"], "1x100G(4)": ["etp1"], "2x400G(8)": ["etp1a", "etp1b"],
        "2x200G(8)": ["etp1a", "etp1b"], "2x100G(8)": ["etp1a", "etp1b"], "2x50G(8)": ["etp1a", "etp1b"],
        "4x200G": ["etp1a", "etp1b", "etp1c", "etp1d"], "4x100G(8)": ["etp1a", "etp1b", "etp1c", "etp1d"],
        "8x100G": [f"etp1{c}" for c in "abcdefgh"], "8x50G": [f"etp1{c}" for c in "abcdefgh"],
    },
}  # fmt: skip
SFP_CAGE = {"index": "65", "lanes": "512", "breakout_modes": {"1x25G[10G]": ["etp65"]}}

CASES = [
    # (cage, mode, {port: (alias, lanes, speed, subport, fec)})
    (SN5600_CAGE, "1x800G[400G,200G,100G,50G,40G,25G,10G]",
     {"Ethernet0": ("etp1", "0,1,2,3,4,5,6,7", "800000", "0", "rs")}),
    (SN5600_CAGE, "2x400G[200G,100G,50G,40G,25G,10G]",
     {"Ethernet0": ("etp1a", "0,1,2,3", "400000", "1", "rs"),
      "Ethernet4": ("etp1b", "4,5,6,7", "400000", "2", "rs")}),
    (Z9864F_CAGE, "2x400G(8)",
     {"Ethernet0": ("etp1a", "1,2,3,4", "400000", "1", "rs"),
      "Ethernet4": ("etp1b", "5,6,7,8", "400000", "2", "rs")}),
    # 1x100G over 4 of the 8 lanes: 25G per lane, so no FEC set
    (Z9864F_CAGE, "1x100G(4)", {"Ethernet0": ("etp1", "1,2,3,4", "100000", "0", None)}),
    (Z9864F_CAGE, "8x50G", {f"Ethernet{i}": (f"etp1{c}", str(i + 1), "50000", str(i + 1), "rs")
                            for i, c in enumerate("abcdefgh")}),
    (SFP_CAGE, "1x25G[10G]", {"Ethernet512": ("etp65", "512", "25000", "0", None)}),
]  # fmt: skip


@pytest.mark.parametrize(("cage", "mode", "expected"), CASES)
def test_child_ports_as_portconfig_breakoutcfg_builds_them(cage, mode, expected):
    name = "Ethernet512" if cage is SFP_CAGE else "Ethernet0"
    ports = generator.child_ports(name, mode, cage)
    got = {
        port: (f["alias"], f["lanes"], f["speed"], f["subport"], f.get("fec")) for port, f in ports.items()
    }
    assert got == expected
    assert {f["index"] for f in ports.values()} == {cage["index"].split(",")[0]}


def test_a_mode_matches_by_ports_speeds_and_lanes_and_an_unlisted_one_is_refused():
    # BreakoutModeEntry.__eq__: "2x400G" over the cage's 8 lanes is the listed "2x400G(8)"
    assert generator.child_ports("Ethernet0", "2x400G", Z9864F_CAGE)["Ethernet4"]["alias"] == "etp1b"
    with pytest.raises(RuntimeError, match=r"Unsupported breakout mode 2x800G!"):
        generator.child_ports("Ethernet0", "2x800G", Z9864F_CAGE)


def test_supported_speeds_per_lanes_per_port():
    assert generator.supported_speeds({"interfaces": {"Ethernet0": Z9864F_CAGE}})["Ethernet0"]["speeds"] == {
        "1": [50000, 100000],
        "2": [100000, 200000],
        "4": [50000, 100000, 200000, 400000],
        "8": [400000, 800000],
    }


@pytest.mark.parametrize("model", list(SONIC_SKUS))
def test_factory_port_table_is_cfggens_from_platform_json(model):
    """Each factory PORT entry: its cage's default mode as BreakoutCfg writes it, then the t1
    preset's admin_status/mtu and db_migrator's dhcp_rate_limit, nothing else."""
    config = sonic_factory(model, "leaf")
    cages = sonic_supported_speeds(SONIC_SKUS[model])
    assert set(config["BREAKOUT_CFG"]) == set(cages)
    for port, fields in config["PORT"].items():
        assert set(fields) - {"fec"} == {
            "admin_status", "alias", "dhcp_rate_limit", "index", "lanes", "mtu", "speed", "subport",
        }  # fmt: skip
        assert (fields["admin_status"], fields["mtu"], fields["dhcp_rate_limit"]) == ("up", "9100", "300")
        lane_speed = int(fields["speed"]) // len(fields["lanes"].split(","))
        assert ("fec" in fields) == (lane_speed >= 50000), port
    assert json.dumps(config["PORT"]["Ethernet0"], sort_keys=True) == json.dumps(
        {"admin_status": "up", "alias": "etp1", "dhcp_rate_limit": "300", "fec": "rs", "index": "1",
         "lanes": cages["Ethernet0"]["lanes"], "mtu": "9100", "speed": "800000", "subport": "0"},
        sort_keys=True,
    )  # fmt: skip
