"""The check registry and the YAML catalog that selects checks and overrides thresholds."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from gpunet.model.yaml_bounds import YamlRefused, safe_load
from gpunet.validate.checks.base import Check
from gpunet.validate.checks.cabling import Cabling
from gpunet.validate.checks.host import (
    AcsDisabled,
    FirewallRules,
    GpuCount,
    GpuNicAffinity,
    NcclConfig,
    NicCableLength,
    NicEts,
    NicPortState,
    NicPrioTc,
    NicQos,
    NtpOffset,
    NvLink,
    RoceGid,
    RoceGidIndex,
)
from gpunet.validate.checks.incast import INCAST_CHECKS
from gpunet.validate.checks.link_qos import LinkQos
from gpunet.validate.checks.switch import LosslessQueueDrops, SwitchEcn, SwitchPfc
from gpunet.validate.checks.traffic import (
    FaultLocalisation,
    HostNetworkThroughput,
    NcclBusBandwidth,
    PairBandwidth,
    PairLatency,
)
from gpunet.validate.thresholds import Thresholds

CHECKS: dict[str, type[Check]] = {
    check.name: check
    for check in (
        NicPortState,
        RoceGid,
        RoceGidIndex,
        NicQos,
        NicPrioTc,
        NicEts,
        NicCableLength,
        GpuCount,
        NvLink,
        GpuNicAffinity,
        AcsDisabled,
        NtpOffset,
        FirewallRules,
        NcclConfig,
        PairBandwidth,
        PairLatency,
        FaultLocalisation,
        NcclBusBandwidth,
        HostNetworkThroughput,
        SwitchPfc,
        SwitchEcn,
        LosslessQueueDrops,
        LinkQos,
        Cabling,
        *INCAST_CHECKS,
    )
}
# Package data; an installed (unzipped) package is a real folder, so a Path is fine.
DEFAULT_CATALOG = Path(str(resources.files("gpunet.validate.checks").joinpath("catalog.yml")))


class CatalogError(ValueError):
    """The catalog file is unreadable or names unknown checks or thresholds."""


class Catalog:
    def __init__(self, checks: list[str], thresholds: dict[str, Any], source: str) -> None:
        self.checks = checks
        self.threshold_overrides = thresholds
        self.source = source
        self.path = source.removesuffix(": thresholds")

    def thresholds(self, base: Thresholds) -> Thresholds:
        merged = {**_as_dict(base), **self.threshold_overrides}
        try:
            return Thresholds.from_mapping({k: v for k, v in merged.items() if v is not None}, self.source)
        except ValueError as error:
            raise CatalogError(str(error)) from None


def _as_dict(thresholds: Thresholds) -> dict[str, Any]:
    return {name: getattr(thresholds, name) for name in Thresholds.__dataclass_fields__}


def load_selection(text: str) -> Catalog:
    """`--checks`: a catalog file, or check names (comma-separated, e.g. `cabling`) run with the
    default catalog's thresholds. A name is taken as such only when no such file exists."""
    names = [name.strip() for name in text.split(",")]
    path = Path(text)
    if path.exists() or not all(name in CHECKS for name in names):
        if not path.exists() and "/" not in text and not text.endswith((".yml", ".yaml")):
            unknown = [name for name in names if name not in CHECKS]
            raise CatalogError(
                f"--checks {text}: no such catalog file, and {unknown} names no check "
                f"(known: {', '.join(CHECKS)})"
            )
        return load_catalog(path)
    default = load_catalog()
    return Catalog(list(dict.fromkeys(names)), default.threshold_overrides, default.source)


def load_catalog(path: Path | None = None) -> Catalog:
    path = path or DEFAULT_CATALOG
    try:
        document = safe_load(path.read_text()) or {}
    except OSError as error:
        raise CatalogError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise CatalogError(f"{path}: not UTF-8 text") from None
    except YamlRefused as error:  # an alias bomb or a key given twice (model/yaml_bounds.py)
        raise CatalogError(f"{path}:{error.line}: {error}" if error.line else f"{path}: {error}") from None
    except yaml.YAMLError as error:
        raise CatalogError(f"{path}: not YAML: {str(error).splitlines()[0]}") from None
    if not isinstance(document, dict) or set(document) - {"checks", "thresholds"}:
        raise CatalogError(f"{path}: expected a mapping with 'checks' and optional 'thresholds'")
    checks = document.get("checks") or []
    if not isinstance(checks, list) or not all(isinstance(name, str) for name in checks):
        raise CatalogError(f"{path}: checks: expected a list of check names")
    unknown = [name for name in checks if name not in CHECKS]
    if unknown:
        raise CatalogError(f"{path}: checks: unknown {unknown} (known: {', '.join(CHECKS)})")
    thresholds = document.get("thresholds") or {}
    if not isinstance(thresholds, dict):
        raise CatalogError(f"{path}: thresholds: expected a mapping")
    try:
        Thresholds.from_mapping(thresholds, f"{path}: thresholds")
    except ValueError as error:
        raise CatalogError(str(error)) from None
    return Catalog(checks, thresholds, f"{path}: thresholds")
