"""scripts/sanity.sh (the `make sanity` gate) fails when the collection has a defect ansible-test
should find: one copy of the installed collection gets one planted defect per sanity test, and one
ansible-test run must report each, naming the file. About 10 s with the sanity venvs cached in
~/.cache/gpunet/ansible-test-home (`make sanity` creates them; about 80 s the first time)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Defect:
    test: str  # the ansible-test sanity test that must report it
    path: str  # relative to the collection root
    expected: str  # regular expression the report must contain

    def plant(self, collection: Path) -> None:
        target = collection / self.path
        text = target.read_text() if target.exists() else ""
        target.write_text(PLANTERS[self.test](text))


PLANTERS = {
    "pep8": lambda text: text.replace("        result = super().run(tmp, task_vars)\n",
                                      "        result = super().run(tmp, task_vars)  \n", 1),
    "validate-modules": lambda text: text.replace("\n  traffic_class:\n", "\n  traffic_klass:\n", 1),
    "import": lambda text: text + "\nimport gpunet_no_such_library  # noqa\n",
    "yamllint": lambda text: text + 'requires_ansible: ">=2.17.0"\n',
    "ansible-doc": lambda _text: "DOCUMENTATION:\n  name: local_port_range\n  short_description: [unclosed\n",
    "compile": lambda _text: "def broken(:\n    pass\n",
}  # fmt: skip

DEFECTS = (
    Defect("pep8", "plugins/action/inventory_check.py", r"plugins/action/inventory_check\.py:\d+:\d+: W291"),
    Defect("validate-modules", "plugins/modules/roce_qos.py",
           r"plugins/modules/roce_qos\.py:0:0: undocumented-parameter: Argument 'traffic_class'"),
    Defect("import", "plugins/filter/verify.py",
           r"plugins/filter/verify\.py:\d+:\d+: traceback: ModuleNotFoundError: .*'gpunet_no_such"),
    Defect("yamllint", "meta/runtime.yml", r"meta/runtime\.yml:\d+:\d+: key-duplicates"),
    Defect("ansible-doc", "plugins/filter/local_port_range.yml",
           r"gpunet\.fabric\.local_port_range has a documentation formatting error"),
    Defect("compile", "plugins/plugin_utils/broken.py", r"plugins/plugin_utils/broken\.py:1:\d+: Syntax"),
)  # fmt: skip


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    work = tmp_path_factory.mktemp("sanity")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    built = subprocess.run(
        [str(REPO_ROOT / "scripts" / "build-collection.sh"), str(work / "dist")],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    artifact = built.stdout.strip().splitlines()[-1]
    subprocess.run(
        [str(BIN / "ansible-galaxy"), "collection", "install", "--force", "--no-deps", "-p", work, artifact],
        capture_output=True, text=True, env={**env, "ANSIBLE_COLLECTIONS_PATH": str(work)}, check=True,
    )  # fmt: skip
    collection = work / "ansible_collections" / "gpunet" / "fabric"
    for defect in DEFECTS:
        defect.plant(collection)
    tests = [arg for defect in DEFECTS for arg in ("--test", defect.test)]
    return subprocess.run(
        [str(REPO_ROOT / "scripts" / "sanity.sh"), "--collection", str(collection), *tests],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip


def test_the_gate_fails(report: subprocess.CompletedProcess[str]) -> None:
    assert report.returncode != 0, report.stdout


@pytest.mark.parametrize("defect", DEFECTS, ids=[defect.test for defect in DEFECTS])
def test_each_defect_is_reported(report: subprocess.CompletedProcess[str], defect: Defect) -> None:
    assert re.search(defect.expected, report.stdout), report.stdout[-4000:]
    failed = report.stdout.rsplit("failed. See error output above for details.", 1)[-1]
    assert re.search(rf"^{re.escape(defect.test)}( --python [\d.]+)?$", failed, flags=re.MULTILINE), failed
