"""A render skips building the model only when the inventory, as the model receives it, is the one
last rendered into that folder and every file is still as written; any input change (a host_var, a
group_var, a vault-encrypted value) renders afresh, and the folder always ends as a fresh render
with no cache writes it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from ansible.parsing.vault import VaultLib, VaultSecret

from gpunet.cli import main
from gpunet.render import pipeline, reuse
from tests.conftest import REPO_ROOT

LAB = REPO_ROOT / "inventories" / "lab"
PASSWORD = b"test-only-password"
FABRIC_VARS = Path("group_vars") / "all" / "fabric.yml"


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    """One entry per model build (check_raw) during the test; caches in a folder of the test's own."""
    monkeypatch.setenv(reuse.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("GPUNET_PARSE_CACHE", str(tmp_path / "parse-cache"))
    monkeypatch.delenv("ANSIBLE_VAULT_PASSWORD_FILE", raising=False)
    calls: list[int] = []
    original = pipeline.check_raw

    def counting(raw: object) -> object:
        calls.append(1)
        return original(raw)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "check_raw", counting)
    return calls


def _encrypt(text: str) -> str:
    return VaultLib([("default", VaultSecret(PASSWORD))]).encrypt(text).decode()


def _inventory(tmp_path: Path, *, vaulted: bool) -> tuple[Path, list[str]]:
    """A copy of the lab inventory; `vaulted`: its fabric-wide vars file is vault-encrypted."""
    inventory = tmp_path / "inventory"
    shutil.copytree(LAB, inventory)
    if not vaulted:
        return inventory, []
    password_file = tmp_path / "vault-password.txt"
    password_file.write_bytes(PASSWORD + b"\n")
    path = inventory / FABRIC_VARS
    path.write_text(_encrypt(path.read_text()))
    return inventory, ["--vault-password-file", str(password_file)]


def _render(inventory: Path, out: Path, *extra: str) -> None:
    assert main(["render", "-i", str(inventory), "--out", str(out), *extra]) == 0


def _files(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}


def _edit_host_var(inventory: Path) -> None:
    path = inventory / "host_vars" / "leaf01.yml"
    text = path.read_text()
    assert "cable_length_m: 3}" in text
    path.write_text(text.replace("cable_length_m: 3}", "cable_length_m: 40}", 1))


def _edit_group_var(inventory: Path) -> None:
    path = inventory / FABRIC_VARS
    text = path.read_text()
    assert "  mtu: 9216\n" in text
    path.write_text(text.replace("  mtu: 9216\n", "  mtu: 9100\n"))


def _edit_vault_value(inventory: Path) -> None:
    path = inventory / FABRIC_VARS
    plain = VaultLib([("default", VaultSecret(PASSWORD))]).decrypt(path.read_text()).decode()
    assert "  mtu: 9216\n" in plain
    path.write_text(_encrypt(plain.replace("  mtu: 9216\n", "  mtu: 9100\n")))


# change -> (edit, whether the fabric-wide vars file is vault-encrypted)
CHANGES: dict[str, tuple[Callable[[Path], None], bool]] = {
    "a host_var": (_edit_host_var, False),
    "a group_var": (_edit_group_var, False),
    "a vault-encrypted value": (_edit_vault_value, True),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_changed_input_renders_afresh(
    change: str, builds: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit, vaulted = CHANGES[change]
    inventory, vault_args = _inventory(tmp_path, vaulted=vaulted)
    out = tmp_path / "intended"
    _render(inventory, out, *vault_args)
    before = _files(out)
    edit(inventory)
    builds.clear()
    _render(inventory, out, *vault_args)
    assert builds, "a changed input must build the model again"
    monkeypatch.setenv(reuse.CACHE_ENV, "off")
    reference = tmp_path / "reference"
    _render(inventory, reference, *vault_args)
    assert _files(out) == _files(reference)
    assert _files(out) != before, "the change must show in the rendered files"


def _hand_edit(out: Path) -> None:
    path = out / "leaf01.cfg"
    path.write_text(path.read_text() + "! hand edit\n")


def _delete(out: Path) -> None:
    (out / "spine01.md").unlink()


def _leftover(out: Path) -> None:
    (out / "leaf01.cfg").rename(out / "leaf01.cfg.orig")


def _carriage_return(out: Path) -> None:
    path = out / "leaf01.cfg"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n", 1))


# what happens to the folder -> whether the render may skip building the model
FOLDER_STATES: dict[str, tuple[Callable[[Path], None], bool]] = {
    "nothing": (lambda out: None, True),
    "a file edited by hand": (_hand_edit, False),
    "a file deleted": (_delete, False),
    "a file renamed": (_leftover, False),
    "a line ending changed": (_carriage_return, False),
    "a foreign file added": (lambda out: (out / "notes.txt").write_text("mine\n"), True),
}


@pytest.mark.parametrize("state", sorted(FOLDER_STATES))
def test_the_same_inventory_skips_the_build_only_when_every_file_is_current(
    state: str, builds: list[int], tmp_path: Path
) -> None:
    inventory, _ = _inventory(tmp_path, vaulted=False)
    out = tmp_path / "intended"
    _render(inventory, out)
    fresh = _files(out)
    apply, skips = FOLDER_STATES[state]
    apply(out)
    builds.clear()
    _render(inventory, out)
    assert len(builds) == (0 if skips else 1)
    fresh_now = _files(out)
    fresh_now.pop("notes.txt", None)
    fresh_now.pop("leaf01.cfg.orig", None)
    assert fresh_now == fresh


def test_check_always_builds(builds: list[int], tmp_path: Path) -> None:
    inventory, _ = _inventory(tmp_path, vaulted=False)
    out = tmp_path / "intended"
    _render(inventory, out)
    builds.clear()
    assert main(["render", "-i", str(inventory), "--out", str(out), "--check"]) == 0
    assert builds == [1]


def test_changed_gpunet_code_builds_again(
    builds: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpunet.model import inventory_key

    inventory, _ = _inventory(tmp_path, vaulted=False)
    out = tmp_path / "intended"
    _render(inventory, out)
    monkeypatch.setattr(inventory_key, "package_fingerprint", lambda: b"another gpunet")
    builds.clear()
    _render(inventory, out)
    assert builds == [1]


def test_no_inventory_value_is_stored(builds: list[int], tmp_path: Path) -> None:
    inventory, vault_args = _inventory(tmp_path, vaulted=True)
    _render(inventory, tmp_path / "intended", *vault_args)
    stored = b"".join(path.read_bytes() for path in (tmp_path / "cache").glob("*.marshal"))
    assert stored
    assert b"10.247.100.250" not in stored  # the NTP server, from the encrypted file


def test_records_of_old_inventory_versions_are_pruned(
    builds: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpunet.render import fabric_reuse

    monkeypatch.setattr(fabric_reuse, "KEEP_RECORDS", 2)
    inventory, _ = _inventory(tmp_path, vaulted=False)
    out = tmp_path / "intended"
    host_file = inventory / "host_vars" / "leaf01.yml"
    original = host_file.read_text()
    for length in (3, 10, 20, 30):
        host_file.write_text(original.replace("cable_length_m: 3}", f"cable_length_m: {length}}}", 1))
        _render(inventory, out)
    records = sorted((tmp_path / "cache").glob(f"{fabric_reuse.RECORD_PREFIX}*.marshal"))
    assert len(records) == 2
    builds.clear()
    _render(inventory, out)
    assert builds == [], "the latest version's record must survive"


def test_a_broken_inventory_after_a_render_still_exits_2_naming_the_path(
    builds: list[int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inventory, _ = _inventory(tmp_path, vaulted=False)
    out = tmp_path / "intended"
    _render(inventory, out)
    fresh = _files(out)
    host_file = inventory / "host_vars" / "leaf01.yml"
    host_file.write_text(host_file.read_text().replace('peer: "gpu01:mlx5_0"', 'peer: "gpu01:mlx5_9"', 1))
    capsys.readouterr()
    assert main(["render", "-i", str(inventory), "--out", str(out)]) == 2
    errors = capsys.readouterr().err
    assert "leaf01.gpunet_ports[0].peer: names a NIC gpu01 does not have" in errors
    assert _files(out) == fresh, "nothing half-applied"
