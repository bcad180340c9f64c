"""What every platform design provides; each OS module implements it once."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from gpunet.design.platform_defaults import BufferParameters, PlatformLimits
from gpunet.hardware import SwitchModel
from gpunet.model.fabric import Qos


@dataclass(frozen=True)
class DesignContext:
    """What a platform's specifics are computed from."""

    model: SwitchModel
    qos: Qos
    buffer: BufferParameters
    system_mtu: int
    fabric_mtu: int
    ports: list[dict[str, Any]]
    queues: list[dict[str, Any]]
    pfc: dict[str, Any]
    ecn: dict[str, Any]
    classification: dict[str, Any] = field(default_factory=dict)


class PlatformDesign(ABC):
    name: str
    limits: PlatformLimits
    # The OS derives PFC headroom itself (from cable length and MTU): computed values are for review.
    sizes_headroom_itself: bool = False

    @abstractmethod
    def speed(self, speed_gbps: int, lanes: int | None) -> str:
        """Port speed as the OS's interface speed command spells it (`lanes`: the SerDes lanes the port
        runs on, from the hardware model's physical layer; None where the model has none)."""

    def breakout_parent(self, cage: str, cage_lanes: int) -> str | None:
        """The port the OS sets a cage's breakout mode on; None where the OS takes no breakout statement
        (the speed of each child port says it)."""
        return None

    def ecn_device(
        self, min_bytes: int, max_bytes: int, buffer: BufferParameters, model: SwitchModel
    ) -> dict[str, Any]:
        """ECN thresholds in the unit the OS's CLI takes (bytes unless the OS says otherwise)."""
        return {"unit": "bytes", "min": min_bytes, "max": max_bytes}

    def profile_name(self, speed_gbps: int, mtu: int, cable_m: int, fabric_mtu: int) -> str | None:
        """Name of the headroom profile a lossless port is bound to; None where the OS has none."""
        return None

    def sizes_headroom(self, model: SwitchModel) -> bool:
        """Whether the OS derives PFC headroom itself on this model (computed values are for review)."""
        return self.sizes_headroom_itself

    @abstractmethod
    def headroom_rendered_as(self, port: dict[str, Any], model: SwitchModel) -> str:
        """How a lossless port's headroom reaches the device, for the summary."""

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        """This OS's own section of the structured config (templates read it by platform name)."""
        return {}

    def notes(self, context: DesignContext, specifics: dict[str, Any]) -> list[str]:
        """Notes for the reviewer; `specifics` is what specifics(context) returned (computed once a
        switch, by design_switch)."""
        return []
