"""`gpunet lab fault` passes the LLDP cabling faults to the switch simulator as switchsim options."""

from __future__ import annotations

import pytest

from gpunet.cli import main
from gpunet.lab import lifecycle


@pytest.mark.parametrize(
    ("options", "faults"),
    [
        (["--lldp-swap", "Ethernet0,Ethernet8"], ["--lldp-swap", "Ethernet0,Ethernet8"]),
        (
            ["--lldp-neighbour", "swp1=gpu02:rail1", "--lldp-neighbour", "swp2="],
            ["--lldp-neighbour=swp1=gpu02:rail1", "--lldp-neighbour=swp2="],
        ),
        ([], []),
    ],
)
def test_lldp_faults_reach_the_simulator(
    monkeypatch, tmp_path, options: list[str], faults: list[str]
) -> None:
    seen: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(
        lifecycle, "set_switch_faults", lambda paths, name, given, reset, say: seen.append((name, given))
    )
    assert main(["lab", "--dir", str(tmp_path), "fault", "leaf02", *options]) == 0
    assert seen == [("leaf02", faults)]
