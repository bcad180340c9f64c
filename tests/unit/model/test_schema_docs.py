"""docs/inventory-reference.md is generated from the schemas and must match them."""

from __future__ import annotations

from gpunet.model.schema_docs import render_reference
from tests.conftest import REPO_ROOT


def test_reference_is_up_to_date() -> None:
    committed = (REPO_ROOT / "docs" / "inventory-reference.md").read_text()
    assert committed == render_reference() + "\n", (
        "docs/inventory-reference.md is stale: run `gpunet inventory docs > docs/inventory-reference.md`"
    )


def test_reference_lists_nested_keys_with_defaults() -> None:
    text = render_reference()
    assert "| `gpunet_fabric.qos.roce_dscp` | integer (>= 0, <= 63) |  | `26` |" in text
    assert "| `gpunet_nics[].switch_port` | string | yes |" in text
