"""The mlx5 hw_counters capture (`grep -H . /sys/class/infiniband/*/ports/*/hw_counters/*`) is read
strictly: a cut or garbled line is refused by its line number, a counter grep could not read is
listed as unreadable, never as a value."""

from __future__ import annotations

import pytest

from gpunet.validate.parsers import ParseError, parse

SYSFS = "/sys/class/infiniband"
CAPTURE = "\n".join(
    [
        f"$ grep -H . {SYSFS}/*/ports/*/hw_counters/*",
        f"{SYSFS}/mlx5_0/ports/1/hw_counters/np_cnp_sent:47990",
        f"{SYSFS}/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets:48020",
        f"{SYSFS}/mlx5_0/ports/1/hw_counters/out_of_sequence:0",
        f"{SYSFS}/mlx5_0/ports/1/hw_counters/rp_cnp_handled:12",
        f"{SYSFS}/mlx5_1/ports/1/hw_counters/rp_cnp_handled:23900",
        f"grep: {SYSFS}/mlx5_1/ports/1/hw_counters/rx_icrc_encapsulated: Invalid argument",
        "",
    ]
)


def test_a_capture_is_read_per_device_port_and_counter() -> None:
    parsed = parse("rdma-hw-counters", CAPTURE)
    assert parsed["devices"]["mlx5_0"]["1"] == {
        "np_cnp_sent": 47990,
        "np_ecn_marked_roce_packets": 48020,
        "out_of_sequence": 0,
        "rp_cnp_handled": 12,
    }
    assert parsed["devices"]["mlx5_1"]["1"] == {"rp_cnp_handled": 23900}
    assert parsed["unreadable"] == {"mlx5_1/1/rx_icrc_encapsulated": "Invalid argument"}


@pytest.mark.parametrize(
    ("case", "change", "reason"),
    [
        (
            "cut mid-path",
            lambda t: t.replace(":23900", "").replace("rp_cnp_handled\n", "rp_cnp_hand\n"),
            "line 6",
        ),
        ("cut after the colon", lambda t: t.replace(":23900", ":"), "line 6: rp_cnp_handled value ''"),
        ("garbled value", lambda t: t.replace(":47990", ":4x990"), "line 2: np_cnp_sent value '4x990'"),
        ("negative value", lambda t: t.replace(":12", ":-12"), "line 5: rp_cnp_handled value '-12'"),
        ("two lines run together", lambda t: t.replace(":0\n", ":0" + SYSFS + "/x\n"), "line 4"),
        (
            "a counter twice",
            lambda t: t + f"{SYSFS}/mlx5_0/ports/1/hw_counters/np_cnp_sent:48000\n",
            "listed twice",
        ),
        ("another file", lambda t: t + f"{SYSFS}/mlx5_0/ports/1/counters/port_xmit_data:1\n", "line 8"),
        (
            "not the capture",
            lambda t: "grep: /sys/class/infiniband/*: No such file or directory\n",
            "line 1: not",
        ),
    ],
)
def test_a_damaged_capture_is_refused_naming_the_line(case: str, change, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("rdma-hw-counters", change(CAPTURE))
    assert reason in str(caught.value), case


LAB_ROOT = "/run/gpunet-lab-traffic/hosts/gpu02/infiniband"


def test_a_capture_under_another_root_is_read_as_sysfs_is() -> None:
    """verify_incast_sysfs_root (the lab's SIMULATION tree): the same lines under another folder."""
    parsed = parse("rdma-hw-counters", CAPTURE.replace(SYSFS, LAB_ROOT))
    assert parsed == parse("rdma-hw-counters", CAPTURE)


@pytest.mark.parametrize(
    ("case", "capture", "reason"),
    [
        (
            "two roots in one capture",
            CAPTURE.replace(
                f"{SYSFS}/mlx5_1/ports/1/hw_counters/rp", f"{LAB_ROOT}/mlx5_1/ports/1/hw_counters/rp"
            ),
            f"line 6: counters under {LAB_ROOT}, the lines before under {SYSFS}",
        ),
        (
            "a root not ending in infiniband",
            CAPTURE.replace(SYSFS, "/run/lab/hosts/gpu02"),
            "line 2",
        ),
        ("a relative root", CAPTURE.replace(SYSFS, "class/infiniband"), "line 2"),
    ],
)
def test_a_capture_whose_roots_do_not_fit_is_refused(case: str, capture: str, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse("rdma-hw-counters", capture)
    assert reason in str(caught.value), case
