"""What gpunet does when it is installed without a checkout around it, or without an extra."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpunet import cli, extras
from gpunet.lab.paths import LabPaths
from gpunet.validate import runner

MISSING = "gpunet_test_module_that_is_not_installed"


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["lab", "status"], "gpunet lab"),
        (["lab", "down"], "gpunet lab"),
        (["lab", "--dir", ".", "up"], "gpunet lab"),
        (["switchsim", "--platform", "eos", "--port", "2200"], "gpunet switchsim"),
    ],
)
def test_lab_commands_name_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], command: str
) -> None:
    monkeypatch.setitem(extras.EXTRA_MODULES, "lab", ("asyncssh", MISSING))
    assert cli.main(argv) == extras.EXIT_MISSING_EXTRA
    err = capsys.readouterr().err
    assert f"{command} needs gpunet's 'lab' extra ({MISSING} is not installed)" in err
    assert "pip install 'gpunet[lab]'" in err


def test_installed_extra_is_not_reported() -> None:
    assert extras.missing_modules("lab") == []  # the test venv installs .[test,lab]


def test_lab_state_goes_under_the_current_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    paths = LabPaths()
    assert paths.state_file == tmp_path / ".lab" / "state.json"
    assert paths.generated_inventory == tmp_path / "inventories" / "lab" / "generated" / "lab.yml"


@pytest.mark.parametrize("use_variable", [False, True])
def test_collection_without_playbooks_says_where_it_looked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, use_variable: bool
) -> None:
    project = tmp_path / "not-a-checkout"
    project.mkdir()
    if use_variable:
        monkeypatch.setenv(runner.PROJECT_DIR_VARIABLE, str(project))
    else:
        monkeypatch.delenv(runner.PROJECT_DIR_VARIABLE, raising=False)
        monkeypatch.chdir(project)
    monkeypatch.setenv("ANSIBLE_COLLECTIONS_PATH", str(tmp_path / "no-collections"))
    rc = runner.run_verify_playbook("inventory", tmp_path / "artifacts", None, None, quiet=True)
    assert rc == runner.EXIT_NO_PLAYBOOK
    assert f"no playbooks/verify.yml in {project}" in capsys.readouterr().err


def test_checkout_is_the_project_when_run_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    repo_root = Path(__file__).resolve().parents[3]
    monkeypatch.delenv(runner.PROJECT_DIR_VARIABLE, raising=False)
    monkeypatch.chdir(repo_root)
    assert (runner.project_dir() / runner.PLAYBOOK).is_file()


def test_gpunet_without_the_lab_extra_never_imports_asyncssh() -> None:
    import subprocess
    import sys

    probe = (
        "import sys; sys.modules['asyncssh'] = None\n"  # any `import asyncssh` now raises ImportError
        "from gpunet import cli\n"
        "assert cli.main(['inventory', 'check', '-i', 'inventories/prod']) == 0\n"
    )
    repo_root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=repo_root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
