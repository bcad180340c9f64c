"""scripts/pack-installed-collection.py --wheel: the fallback of scripts/install-collections.sh packs
requirements.yml's collections from the `ansible` bundle's wheel. A small wheel-shaped zip stands in
for the 54 MB bundle: FILES.json lists a file the bundle left out, as the real one does."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location(
    "pack_collection", REPO_ROOT / "scripts/pack-installed-collection.py"
)
assert _spec and _spec.loader
pack_collection = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pack_collection)

PREFIX = "ansible_collections/ansible/posix/"


def _wheel(path: Path, version: str = "2.1.0") -> Path:
    files = {
        "format": 1,
        "files": [
            {"name": ".", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1},
            {"name": "plugins", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1},
            {"name": "plugins/modules/sysctl.py", "ftype": "file", "chksum_type": "sha256",
             "chksum_sha256": hashlib.sha256(b"# sysctl\n").hexdigest(), "format": 1},
            # left out of the bundle, still listed
            {"name": "tests/unit/test_sysctl.py", "ftype": "file", "chksum_type": "sha256",
             "chksum_sha256": "0" * 64, "format": 1},
        ],
    }  # fmt: skip
    manifest = {
        "collection_info": {"namespace": "ansible", "name": "posix", "version": version},
        "file_manifest_file": {"name": "FILES.json", "ftype": "file", "chksum_type": "sha256",
                               "chksum_sha256": "stale", "format": 1},
        "format": 1,
    }  # fmt: skip
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{PREFIX}MANIFEST.json", json.dumps(manifest))
        wheel.writestr(f"{PREFIX}FILES.json", json.dumps(files))
        wheel.writestr(f"{PREFIX}plugins/modules/sysctl.py", "# sysctl\n")
        wheel.writestr("ansible_collections/community/general/MANIFEST.json", "{}")
    return path


def test_packs_the_collection_with_files_json_cut_to_what_is_there(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "ansible-12.3.0-py3-none-any.whl")
    [tarball] = pack_collection.pack_from_wheel(wheel, {"ansible.posix": ">=1.5.4,<3.0.0"}, tmp_path / "out")
    assert tarball.name == "ansible-posix-2.1.0.tar.gz"
    with tarfile.open(tarball) as artifact:
        names = set(artifact.getnames())
        files_json = artifact.extractfile("FILES.json").read()
        manifest = json.loads(artifact.extractfile("MANIFEST.json").read())
    assert "plugins/modules/sysctl.py" in names and "tests/unit/test_sysctl.py" not in names
    listed = [entry["name"] for entry in json.loads(files_json)["files"]]
    assert "tests/unit/test_sysctl.py" not in listed and "plugins/modules/sysctl.py" in listed
    assert manifest["file_manifest_file"]["chksum_sha256"] == hashlib.sha256(files_json).hexdigest()


def test_a_version_outside_the_range_is_refused(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "ansible-9.0.0-py3-none-any.whl", version="1.5.0")
    with pytest.raises(SystemExit, match=r"ships ansible.posix 1.5.0, outside the required range >=1.5.4"):
        pack_collection.pack_from_wheel(wheel, {"ansible.posix": ">=1.5.4,<3.0.0"}, tmp_path / "out")


def test_a_collection_the_wheel_lacks_is_named(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "ansible-12.3.0-py3-none-any.whl")
    with pytest.raises(SystemExit, match=r"has no community\.docker"):
        pack_collection.pack_from_wheel(wheel, {"community.docker": "*"}, tmp_path / "out")


def test_requirements_yml_names_what_setup_packs() -> None:
    assert pack_collection.requirements(REPO_ROOT / "requirements.yml") == {
        "ansible.posix": ">=1.5.4,<3.0.0",
        "community.general": ">=9.0.0,<12.0.0",
    }


def test_requirements_test_yml_adds_what_molecule_and_the_tests_connect_with() -> None:
    assert pack_collection.requirements(REPO_ROOT / "requirements-test.yml") == {
        "containers.podman": ">=1.8.1,<2.0.0"
    }


def test_the_cli_packs_the_collections_of_every_requirements_file(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "ansible-12.3.0-py3-none-any.whl")
    first, second = tmp_path / "requirements.yml", tmp_path / "requirements-test.yml"
    first.write_text("collections:\n  - name: ansible.posix\n    version: '>=2'\n")
    second.write_text("collections:\n  - name: community.docker\n")
    argv = ["--wheel", str(wheel), "--requirements", str(first)]
    pack_collection.main([*argv, str(tmp_path / "one")])
    assert [path.name for path in (tmp_path / "one").iterdir()] == ["ansible-posix-2.1.0.tar.gz"]
    # The second file's collection is wanted too: this wheel lacks it.
    with pytest.raises(SystemExit, match=r"has no community\.docker"):
        pack_collection.main([*argv, "--requirements", str(second), str(tmp_path / "two")])
