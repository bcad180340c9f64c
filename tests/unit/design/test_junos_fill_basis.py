"""Issue 26, the Junos fill-level basis: Juniper defines a fill level against the memory allocated to the
queue, which no Juniper source gives in bytes for the QFX5120 or QFX5240. The summary must say which
basis the rendered levels assume and, in bytes, what the device does under the other bases Juniper's
buffer model allows (the queue's dedicated buffer, at most one port's equal part of the buffer)."""

from __future__ import annotations

import re

import pytest

from gpunet.hardware import get_model
from gpunet.render import render_switch
from tests.unit.design.fabric_factory import LEAF, one_leaf_fabric

WRED_PAGE = "cos-drop-profiles-qfx-series-cli.html"


def _render(model: str, min_kb: int, max_kb: int, buffer: dict[str, int] | None) -> tuple[str, str]:
    fabric = one_leaf_fabric(
        "junos",
        [{"name": "et-0/0/0", "speed_gbps": 100}],
        model=model,
        qos={"ecn": {"min_threshold_kb": min_kb, "max_threshold_kb": max_kb}},
        buffer=buffer,
    )
    rendered = render_switch(fabric, fabric.switches[LEAF])
    (note,) = [line for line in rendered.summary.splitlines() if line.startswith("- ECN thresholds are")]
    return rendered.config, note


def _levels(config: str) -> tuple[str, str]:
    ((low, high),) = set(re.findall(r"interpolate fill-level \[ (\S+) (\S+) \]", config))
    return low, high


def _bytes(level: str, basis: int) -> int:
    return round(float(level) * basis / 100)


@pytest.mark.parametrize(
    ("model", "min_kb", "max_kb"),
    [
        ("QFX5240-64OD", 150, 1500),  # Junos OS Evolved, decimal levels
        ("QFX5240-64OD", 100, 3000),
        ("QFX5120-32C", 150, 1500),  # Junos OS QFX, whole percents
        ("QFX5120-32C", 1000, 4096),
    ],
)
def test_the_summary_gives_the_bytes_under_each_basis(model: str, min_kb: int, max_kb: int) -> None:
    config, note = _render(model, min_kb, max_kb, None)
    low, high = _levels(config)
    hardware = get_model(model)
    chip = hardware.buffer_bytes
    port_share = hardware.buffer_bytes // hardware.ports
    assert WRED_PAGE in note  # the definition the basis question comes from
    assert f"the basis is the model's documented buffer, an assumption: {chip} bytes" in note
    # Assumed basis: the levels mean these bytes.
    assert f"marks from {_bytes(low, chip)} / {_bytes(high, chip)} bytes" in note
    assert f"(policy {min_kb * 1024} / {max_kb * 1024})" in note
    # The queue's dedicated buffer is at most one port's equal part: the device marks by these bytes.
    assert f"{chip} / {hardware.ports} ports = {port_share} bytes" in note
    assert f"marks from at most {_bytes(low, port_share)} / {_bytes(high, port_share)} bytes" in note
    assert _bytes(high, port_share) < min_kb * 1024  # far earlier than the policy on either chip


@pytest.mark.parametrize(("model", "basis"), [("QFX5240-64OD", 4_000_000), ("QFX5120-32C", 2_000_000)])
def test_an_operator_basis_is_named_as_such_without_the_alternatives(model: str, basis: int) -> None:
    config, note = _render(model, 150, 1500, {"queue_buffer_bytes": basis})
    low, high = _levels(config)
    assert f"gpunet_switch_buffer.queue_buffer_bytes, {basis} bytes, set for this switch" in note
    assert f"marks from {_bytes(low, basis)} / {_bytes(high, basis)} bytes" in note
    assert "the model's documented buffer" not in note
    assert "ports =" not in note
