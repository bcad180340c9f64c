"""Which Junos YANG release judges a switch: it follows from the switch's hardware model.

The model table (gpunet.hardware, models.yml `junos_flavour`, each row with its Juniper source)
says whether a model runs Junos OS Evolved or Junos OS; the two bundled releases are those
flavours of 24.4R1 (../shared/vendor-schemas/junos-yang/PROVENANCE.md: Juniper/yang 2a696d62,
24.4/24.4R1-EVO and 24.4/24.4R1/native/conf-and-rpcs/junos-qfx).
"""

from __future__ import annotations

from gpunet.hardware import get_model

RELEASE_BY_FLAVOUR = {"evo": "24.4R1-EVO", "junos-os": "24.4R1-qfx"}


def release_for_model(model: str) -> str:
    flavour = get_model(model).junos_flavour
    if flavour not in RELEASE_BY_FLAVOUR:
        raise ValueError(
            f"no Junos YANG release known for hardware model {model!r} (junos_flavour {flavour!r})"
        )
    return RELEASE_BY_FLAVOUR[flavour]
