"""gpunet.hosts.settings: the values the host roles derive from the fabric model."""

from __future__ import annotations

from typing import Any

import pytest

from gpunet.hosts.settings import (
    cidrs_by_family,
    fabric_settings,
    interface_with_address,
    local_port_range,
    nccl_environment,
    nic_cable_lengths,
    nic_ets,
    roce_traffic_class,
)

FABRIC: dict[str, Any] = {
    "name": "t",
    "ntp": {"servers": ["ntp1"]},
    "firewall": {"fabric_cidrs": ["198.51.100.0/24"], "mgmt_cidrs": ["192.0.2.0/24"]},
}
NICS = [{"name": f"mlx5_{i}", "netdev": f"rail{i}"} for i in (0, 1, 10)]


@pytest.mark.parametrize(("dscp", "tos"), [(26, 106), (24, 98), (0, 2), (63, 254)])
def test_roce_traffic_class_is_dscp_shifted_with_ect0(dscp: int, tos: int) -> None:
    assert roce_traffic_class(dscp) == tos


def test_fabric_settings_fill_the_roce_defaults_and_derive_the_tos() -> None:
    settings = fabric_settings({**FABRIC, "qos": {"roce_dscp": 24}})
    assert settings["qos"]["roce_traffic_class"] == 98
    assert settings["qos"]["lossless_priority"] == 3
    assert settings["host_mtu"] == 9000
    assert settings["firewall"]["nccl_port_range"] == [50000, 51000]


@pytest.mark.parametrize(
    ("fabric", "kwargs", "expected"),
    [
        (
            FABRIC,
            {"socket_ifname": "=eth0"},
            {
                "NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_10:1",
                "NCCL_IB_TC": "106",
                "NCCL_SOCKET_IFNAME": "=eth0",
            },
        ),
        (
            FABRIC,
            {"gid_index": 3},
            {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_10:1", "NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "106"},
        ),
        (
            {**FABRIC, "transport": "infiniband"},
            {"extra": {"NCCL_DEBUG": "WARN"}},
            {"NCCL_IB_HCA": "=mlx5_0:1,mlx5_1:1,mlx5_10:1", "NCCL_DEBUG": "WARN"},
        ),
        (
            {**FABRIC, "qos": {"roce_dscp": 24}},
            {"gid_index": None, "port": 2},
            {"NCCL_IB_HCA": "=mlx5_0:2,mlx5_1:2,mlx5_10:2", "NCCL_IB_TC": "98"},
        ),
    ],
    ids=[
        "roce defaults: NCCL picks the GID",
        "operator sets the GID index",
        "infiniband has no TC or GID index",
        "custom DSCP, NCCL picks the GID",
    ],
)
def test_nccl_environment(fabric: dict[str, Any], kwargs: dict[str, Any], expected: dict[str, str]) -> None:
    assert nccl_environment(fabric, NICS, **kwargs) == expected


def test_local_port_range_follows_the_fabric() -> None:
    assert local_port_range(FABRIC) == "50000 51000"
    assert local_port_range(
        {**FABRIC, "firewall": {**FABRIC["firewall"], "nccl_port_range": [40000, 40999]}}
    ) == ("40000 40999")


def test_cidrs_split_by_family_and_normalised() -> None:
    assert cidrs_by_family(["10.0.0.1/24", "2001:db8::/48", "192.0.2.0/24"]) == {
        "ipv4": ["10.0.0.0/24", "192.0.2.0/24"],
        "ipv6": ["2001:db8::/48"],
    }


FACTS = {
    "interfaces": ["lo", "rail0", "mgmt-0"],
    "lo": {"ipv4": {"address": "127.0.0.1"}},
    "rail0": {"ipv4": {"address": "10.247.0.2"}},
    "mgmt_0": {"ipv4": {"address": "10.0.0.9"}, "ipv4_secondaries": [{"address": "10.247.100.22"}]},
}


@pytest.mark.parametrize(
    ("address", "expected"),
    [("10.247.0.2", "rail0"), ("10.247.100.22", "mgmt-0"), ("192.0.2.1", ""), ("", "")],
)
def test_interface_with_address(address: str, expected: str) -> None:
    assert interface_with_address(FACTS, address) == expected


def _queues(*queues: tuple[str, int, int | None]) -> dict[str, Any]:
    return {
        "queues": [
            {
                "name": name,
                "traffic_class": tc,
                **({"strict": True} if bw is None else {"bandwidth_percent": bw}),
            }
            for name, tc, bw in queues
        ]
    }


@pytest.mark.parametrize(
    ("qos", "prio_tc", "tc_tsa", "tc_bw"),
    [
        # The defaults: default 50 % on TC 0, RoCE 50 % on TC 3, CNP strict on TC 6; the rest in TC 0.
        (
            {},
            [0, 0, 0, 3, 0, 0, 6, 0],
            ["ets", "ets", "ets", "ets", "ets", "ets", "strict", "ets"],
            [50, 0, 0, 50, 0, 0, 0, 0],
        ),
        # 70/30 with the CNP on TC 7: each share and the strict class follow the policy.
        (
            {"cnp_priority": 7, **_queues(("default", 0, 30), ("roce", 3, 70), ("cnp", 7, None))},
            [0, 0, 0, 3, 0, 0, 0, 7],
            ["ets", "ets", "ets", "ets", "ets", "ets", "ets", "strict"],
            [30, 0, 0, 70, 0, 0, 0, 0],
        ),
        # No queue on TC 0: unused priorities go to the lowest shared queue that is not the lossless one.
        (
            _queues(("bulk", 1, 40), ("roce", 3, 60), ("cnp", 6, None)),
            [1, 1, 1, 3, 1, 1, 6, 1],
            ["ets", "ets", "ets", "ets", "ets", "ets", "strict", "ets"],
            [0, 40, 0, 60, 0, 0, 0, 0],
        ),
        # Only RoCE shares: unused priorities go to a class no queue uses (ETS 0 %), never the lossless one.
        (
            _queues(("roce", 3, 100), ("cnp", 6, None)),
            [0, 0, 0, 3, 0, 0, 6, 0],
            ["ets", "ets", "ets", "ets", "ets", "ets", "strict", "ets"],
            [0, 0, 0, 100, 0, 0, 0, 0],
        ),
    ],
)
def test_nic_ets_follows_the_queue_policy(
    qos: dict[str, Any], prio_tc: list[int], tc_tsa: list[str], tc_bw: list[int]
) -> None:
    ets = nic_ets({**FABRIC, "qos": qos})
    assert (ets["prio_tc"], ets["tc_tsa"], ets["tc_bw"]) == (prio_tc, tc_tsa, tc_bw)
    assert sum(ets["tc_bw"]) == 100
    assert all(bw == 0 for tsa, bw in zip(ets["tc_tsa"], ets["tc_bw"], strict=True) if tsa == "strict")


def test_nic_ets_refuses_shares_that_do_not_sum_to_100() -> None:
    with pytest.raises(ValueError, match=r"sum to 100 .* got 90"):
        nic_ets({**FABRIC, "qos": _queues(("default", 0, 40), ("roce", 3, 50), ("cnp", 6, None))})


def test_nic_cable_lengths_read_the_leaf_port_or_the_fabric_default() -> None:
    nics = [
        {"netdev": "rail0", "switch": "leaf01", "switch_port": "swp1"},
        {"netdev": "rail1", "switch": "leaf01", "switch_port": "swp2"},
        {"netdev": "rail2", "switch": "leaf09", "switch_port": "swp1"},  # leaf not in the inventory
        {"netdev": "rail3", "switch": "leaf01", "switch_port": "swp9"},  # port the leaf does not list
    ]
    ports = {"leaf01": [{"name": "swp1", "cable_length_m": 3}, {"name": "swp2"}]}
    fabric = {**FABRIC, "qos": {"pfc": {"cable_length_m": 30}}}
    assert nic_cable_lengths(fabric, nics, ports) == {"rail0": 3, "rail1": 30}
    assert nic_cable_lengths(FABRIC, nics, ports) == {"rail0": 3, "rail1": 100}  # the model's default
