"""Arista EOS: the OS sizes PFC headroom; tx-queue (Sand) or uc-tx-queue (Strata) by hardware model."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import BufferParameters, PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.hardware import SwitchModel

# Speeds EOS spells without a lane count (one lane each, or 40G's four 10G lanes): EOS User Manual,
# Ethernet Ports, speed command (https://www.arista.com/en/um-eos/eos-ethernet-ports).
SPEEDS_WITHOUT_LANES = {10, 25, 40}


class EosDesign(PlatformDesign):
    name = "eos"
    # EOS interfaces stop at 9214; watchdog polling 0.005..30 s, at most half of timeout/recovery.
    limits = PlatformLimits(
        max_mtu=9214,
        watchdog_interval_ms=100,
        watchdog_interval_at_most_half=True,
        watchdog_interval_min_ms=5,
    )
    sizes_headroom_itself = True

    def speed(self, speed_gbps: int, lanes: int | None) -> str:
        # `speed <rate>-<lanes>`: the lanes are the port's, from the model's SerDes (models.yml physical):
        # 400G is 400g-4 on Tomahawk 5's 100G lanes and 400g-8 on Jericho2's 50G lanes.
        if speed_gbps in SPEEDS_WITHOUT_LANES:
            return f"{speed_gbps}g"
        if lanes is None:
            raise ValueError(f"EOS needs the lane count of a {speed_gbps}G port (models.yml physical)")
        return f"{speed_gbps}g-{lanes}"

    def ecn_device(
        self, min_bytes: int, max_bytes: int, buffer: BufferParameters, model: SwitchModel
    ) -> dict[str, Any]:
        return {"unit": "kbytes", "min": min_bytes // 1024, "max": max_bytes // 1024}

    def headroom_rendered_as(self, port: dict[str, Any], model: SwitchModel) -> str:
        return "derived by EOS"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        keyword = context.model.eos_queue_keyword
        if keyword is None:
            raise ValueError(f"hardware model {context.model.name} has no eos_queue_keyword")
        return {"queue_keyword": keyword, "asic_family": context.model.asic_family}

    def notes(self, context: DesignContext, specifics: dict[str, Any]) -> list[str]:
        keyword = context.model.eos_queue_keyword
        notes = [
            "EOS sizes PFC headroom itself; the computed values below are for review and are not rendered.",
            f"{context.model.title} is a {context.model.asic_family} platform: egress queues are "
            f"`{keyword}`; the lossless queue counts ECN marks (`random-detect ecn count`).",
        ]
        lossless = [port for port in context.ports if port["lossless"]]
        if context.model.asic_family == "strata" and lossless:
            longest = max(lossless, key=lambda port: port["headroom"]["size_bytes"])
            notes.append(
                "Assumed, not rendered: on Strata (Tomahawk/Trident) published lossless configs also set "
                "an MMU queue profile (ingress headroom, ingress threshold); no Arista source in hand gives "
                "its syntax or EOS's default headroom, so the switch's default is assumed to cover the "
                f"longest lossless cable ({longest['cable_length_m']} m on {longest['name']}, "
                f"{longest['headroom']['size_bytes']} bytes computed). Check it before relying on "
                "lossless behaviour at that length."
            )
        return notes
