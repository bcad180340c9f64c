"""Which Junos YANG release judges a switch: it follows from the switch's hardware model.

Junos OS Evolved runs on QFX5130/5220/5230/5240/5700, Junos OS (family junos-qfx) on
QFX5100/5110/5120/5200/5210 (../shared/vendor-schemas/junos-yang/PROVENANCE.md, after Juniper/yang
2a696d62 24.4/24.4R1-EVO and 24.4/24.4R1/native/conf-and-rpcs/junos-qfx). Where gpunet's hardware
table (gpunet.hardware, `junos_flavour`) is present it decides; otherwise the model's series does.
"""

from __future__ import annotations

from tests.vendor_schemas.corpus import RenderedConfig

RELEASE_BY_FLAVOUR = {"evo": "24.4R1-EVO", "junos-os": "24.4R1-qfx"}
EVO_SERIES = ("QFX5130", "QFX5220", "QFX5230", "QFX5240", "QFX5700")
JUNOS_OS_SERIES = ("QFX5100", "QFX5110", "QFX5120", "QFX5200", "QFX5210", "QFX10")

# The model of the Junos switches whose inventory predates the per-switch model key
# (gpunet_switch_model, branch i11-switch); both are QFX5240-64OD there.
MODEL_BEFORE_THE_MODEL_KEY = {
    "intended/prod/leaf08": "QFX5240-64OD",
    "tests/fixtures/render/junos_fill_levels_four_queues/expected/leaf01": "QFX5240-64OD",
}


def model_of(config: RenderedConfig) -> str:
    model = str(getattr(config.switch, "model", "") or "")
    return model or MODEL_BEFORE_THE_MODEL_KEY.get(config.label, "")


def release_for_model(model: str) -> str:
    try:
        from gpunet.hardware import get_model  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        pass
    else:
        try:
            flavour = get_model(model).junos_flavour
        except ValueError:
            flavour = None
        if flavour in RELEASE_BY_FLAVOUR:
            return RELEASE_BY_FLAVOUR[flavour]
    if model.upper().startswith(EVO_SERIES):
        return RELEASE_BY_FLAVOUR["evo"]
    if model.upper().startswith(JUNOS_OS_SERIES):
        return RELEASE_BY_FLAVOUR["junos-os"]
    raise ValueError(f"no Junos YANG release known for hardware model {model!r}")
