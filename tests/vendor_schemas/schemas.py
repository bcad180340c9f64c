"""Where the vendors' machine-readable schemas are (../shared/vendor-schemas); a clean skip without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

VENDOR_SCHEMAS_DIR = REPO_ROOT.parent / "shared" / "vendor-schemas"
SONIC_YANG_DIR = VENDOR_SCHEMAS_DIR / "sonic-yang-models"
JUNOS_YANG_DIR = VENDOR_SCHEMAS_DIR / "junos-yang"
NVUE_DIR = VENDOR_SCHEMAS_DIR / "nvue"


def require(folder: Path) -> Path:
    """`folder`, or skip the calling test with a message naming what is missing."""
    if not folder.is_dir():
        pytest.skip(f"{folder} is not present (the vendor schemas live in ../shared/vendor-schemas)")
    return folder
