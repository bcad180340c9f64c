"""Every host role documents each knob: defaults, argument specs and README agree."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT

HOST_ROLES = (
    "chrony",
    "firewall",
    "nccl_env",
    "rdma_tools",
    "roce_host",
    "lldpd",
    "nvidia_repo",
    "nvidia_driver",
    "cuda_toolkit",
    "nccl",
    "nccl_tests",
)


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text()) or {}


@pytest.mark.parametrize("role", HOST_ROLES)
def test_defaults_specs_and_readme_agree(role: str) -> None:
    root = REPO_ROOT / "roles" / role
    defaults = load(root / "defaults/main.yml")
    options = load(root / "meta/argument_specs.yml")["argument_specs"]["main"]["options"]
    readme = (root / "README.md").read_text()

    assert set(defaults) <= set(options), f"knobs without an argument spec: {set(defaults) - set(options)}"
    for name, spec in options.items():
        assert name.startswith((f"{role}_", "gpunet_")), f"{name} lacks the {role}_ prefix"
        assert spec.get("description"), f"{name} has no description"
        assert f"`{name}`" in readme, f"{name} is missing from the README's Role Variables"
    for heading in ("## Requirements", "## Role Variables", "## Example Playbook"):
        assert heading in readme


@pytest.mark.parametrize("role", HOST_ROLES)
def test_role_names_no_model_variable_as_a_role_knob(role: str) -> None:
    """Declaring gpunet_fabric/_nics/_hardware in a spec would hide them from the inventory check."""
    options = load(REPO_ROOT / "roles" / role / "meta/argument_specs.yml")["argument_specs"]["main"][
        "options"
    ]
    assert not {"gpunet_fabric", "gpunet_nics", "gpunet_hardware", "gpunet_gpus"} & set(options)
