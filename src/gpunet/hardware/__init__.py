"""Switch hardware models: the per-model facts the design needs, read from models.yml."""

from gpunet.hardware.catalog import (
    PgLookupRow,
    SwitchModel,
    UnknownSwitchModelError,
    get_model,
    known_models,
)

__all__ = ["PgLookupRow", "SwitchModel", "UnknownSwitchModelError", "get_model", "known_models"]
