"""The role knobs the inventory check allows come from package data generated from roles/."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from gpunet.model.role_vars import DATA_FILE, data_file_text, declared_role_variables, role_variables

ROLES_DIR = Path(__file__).resolve().parents[3] / "roles"


def test_package_data_matches_the_roles() -> None:
    shipped = resources.files("gpunet.model").joinpath(DATA_FILE).read_text()
    assert shipped == data_file_text(ROLES_DIR), (
        "src/gpunet/model/role_variables.json is stale: regenerate it with "
        "`python -m gpunet.model.role_vars roles > src/gpunet/model/role_variables.json`"
    )


def test_every_declared_knob_is_allowed() -> None:
    declared = declared_role_variables(ROLES_DIR)
    assert declared, "no role declares a gpunet_* option: the roles folder was not found"
    assert role_variables() == declared


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"main": {"options": {"gpunet_a": {}, "other": {}}}}, {"gpunet_a"}),
        (
            {"main": {"options": {"gpunet_a": {}}}, "extra": {"options": {"gpunet_b": {}}}},
            {"gpunet_a", "gpunet_b"},
        ),
        ({"main": {}}, set()),
    ],
)
def test_declared_names_are_the_gpunet_options_of_every_entry_point(
    tmp_path: Path, spec: dict, expected: set[str]
) -> None:
    import yaml

    meta = tmp_path / "some_role" / "meta"
    meta.mkdir(parents=True)
    (meta / "argument_specs.yml").write_text(yaml.safe_dump({"argument_specs": spec}))
    assert declared_role_variables(tmp_path) == expected
