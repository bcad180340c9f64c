"""One personality per switch OS, keyed like the platform registry (gpunet.platforms)."""

from __future__ import annotations

from gpunet.lab.switchsim.personalities.base import Personality
from gpunet.lab.switchsim.personalities.cumulus import CumulusPersonality
from gpunet.lab.switchsim.personalities.eos import EosPersonality
from gpunet.lab.switchsim.personalities.junos import JunosPersonality
from gpunet.lab.switchsim.personalities.nxos import NxosPersonality
from gpunet.lab.switchsim.personalities.sonic import SonicPersonality

PERSONALITIES: dict[str, type[Personality]] = {
    "nxos": NxosPersonality,
    "eos": EosPersonality,
    "cumulus": CumulusPersonality,
    "sonic": SonicPersonality,
    "junos": JunosPersonality,
}
