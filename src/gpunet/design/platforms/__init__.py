"""Per-platform design: one module per switch OS, behind one registry.

The generic design (classification, queues, PFC, ports) knows no platform names; everything an OS
spells or sizes its own way lives in that OS's module here. Adding an OS is one module and one entry.
"""

from __future__ import annotations

from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.design.platforms.cumulus import CumulusDesign
from gpunet.design.platforms.eos import EosDesign
from gpunet.design.platforms.junos import JunosDesign
from gpunet.design.platforms.nxos import NxosDesign
from gpunet.design.platforms.sonic import SonicDesign

DESIGNS: dict[str, PlatformDesign] = {
    design.name: design
    for design in (NxosDesign(), EosDesign(), CumulusDesign(), SonicDesign(), JunosDesign())
}


def platform_design(platform: str) -> PlatformDesign:
    return DESIGNS[platform]


__all__ = ["DESIGNS", "DesignContext", "PlatformDesign", "platform_design"]
