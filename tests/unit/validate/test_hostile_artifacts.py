"""`gpunet-validate --from-artifacts` on a hostile or broken folder (issue 34): each case builds
the folder from the healthy fixture, runs the command and asserts its exit code and message.

A capture that may not be read is an error result naming the file (exit 3); a manifest that is
not one is a usage error naming what is wrong (exit 2); neither ever hangs, reads out of the
folder or ends in an internal error."""

from __future__ import annotations

import json
import os
import re
import shutil
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest

from gpunet.validate import artifacts as artifacts_module
from gpunet.validate.capture_file import UnsafeFileError, read_bytes
from gpunet.validate.cli import main
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
SECRET = "not-an-artifact: secret text outside the folder"


def _outside(folder: Path) -> Path:
    """A file beside the artifacts folder that must never be read."""
    secret = folder.parent / "outside.txt"
    secret.write_text(SECRET + "\n")
    return secret


def _symlinked_capture(folder: Path) -> None:
    capture = folder / "hosts/gpu01/ibstat.txt"
    capture.unlink()
    capture.symlink_to(_outside(folder))


def _symlinked_host_folder(folder: Path) -> None:
    elsewhere = folder.parent / "elsewhere"
    shutil.move(folder / "hosts/gpu01", elsewhere)
    (elsewhere / "ibstat.txt").write_text(SECRET + "\n")
    (folder / "hosts/gpu01").symlink_to(elsewhere)


def _symlinked_host_folder_with_reason(folder: Path) -> None:
    _symlinked_host_folder(folder)
    (folder.parent / "elsewhere" / "collection-error.txt").write_text(SECRET + "\n")


def _fifo_capture(folder: Path) -> None:
    capture = folder / "hosts/gpu01/ibstat.txt"
    capture.unlink()
    os.mkfifo(capture)


def _dev_zero_capture(folder: Path) -> None:
    capture = folder / "hosts/gpu01/ibstat.txt"
    capture.unlink()
    capture.symlink_to("/dev/zero")


def _oversized_capture(folder: Path) -> None:
    with open(folder / "hosts/gpu01/ibstat.txt", "ab") as capture:
        capture.truncate(artifacts_module.MAX_CAPTURE_BYTES + 1)  # sparse: no disk spent


# (case, how the folder is spoiled, a result message that must appear)
UNREADABLE_CAPTURES: list[tuple[str, Callable[[Path], None], str]] = [
    (
        "symlink-out",
        _symlinked_capture,
        "hosts/gpu01/ibstat.txt: is a symbolic link (only regular files are read)",
    ),
    (
        "host-folder-symlink-out",
        _symlinked_host_folder,
        "hosts/gpu01/ibstat.txt: hosts/gpu01/ leads out of the artifacts folder",
    ),
    (
        "host-folder-out-with-reason",
        _symlinked_host_folder_with_reason,
        "hosts/gpu01/ leads out of the artifacts folder: not read",
    ),
    ("fifo", _fifo_capture, "hosts/gpu01/ibstat.txt: is a FIFO (only regular files are read)"),
    (
        "dev-zero",
        _dev_zero_capture,
        "hosts/gpu01/ibstat.txt: is a symbolic link (only regular files are read)",
    ),
    ("oversized", _oversized_capture, "hosts/gpu01/ibstat.txt: is larger than the 16 MiB cap"),
]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, copy)
    return copy


def _json_report(folder: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:
    code = main(["--from-artifacts", str(folder), "--format", "json", "--jobs", "1", *extra])
    out = capsys.readouterr().out
    return code, json.loads(out) if out else {}


@pytest.mark.parametrize(
    ("spoil", "message"), [case[1:] for case in UNREADABLE_CAPTURES], ids=[c[0] for c in UNREADABLE_CAPTURES]
)
def test_a_capture_that_may_not_be_read_is_an_error_naming_it(
    folder: Path, capsys: pytest.CaptureFixture[str], spoil: Callable[[Path], None], message: str
) -> None:
    spoil(folder)
    code, report = _json_report(folder, capsys)
    assert code == 3
    messages = [result["message"] for result in report["results"]]
    assert any(message in text for text in messages), sorted(set(messages))[:5]
    assert not any(SECRET in json.dumps(result) for result in report["results"])


def test_the_run_cap_stops_reading(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(artifacts_module, "MAX_RUN_BYTES", 4096)
    code, report = _json_report(folder, capsys)
    assert code == 3
    assert any(
        "not read: this run read more than the 4096 bytes cap" in r["message"] for r in report["results"]
    )


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeFileError, match="is a device"):
        read_bytes("/dev/zero")
    with pytest.raises(UnsafeFileError, match="is a directory"):
        read_bytes(str(tmp_path))


def _manifest_document(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def _rewrite(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def spoil(folder: Path) -> None:
        document = _manifest_document(folder)
        change(document)
        (folder / "manifest.json").write_text(json.dumps(document))

    return spoil


def _write(content: bytes) -> Callable[[Path], None]:
    return lambda folder: (folder / "manifest.json").write_bytes(content)


def _rename_host(document: dict) -> None:
    document["hosts"]["../../x"] = document["hosts"].pop("gpu01")


def _fifo_manifest(folder: Path) -> None:
    (folder / "manifest.json").unlink()
    os.mkfifo(folder / "manifest.json")


DEEP = 100_000
# (case, how the manifest is spoiled, the whole stderr line after "<folder>/manifest.json: ")
BROKEN_MANIFESTS: list[tuple[str, Callable[[Path], None], str]] = [
    ("binary", _write(b"\x89PNG\r\n\x1a\n\xff\xfe"), "not UTF-8 text (byte 0x89 at offset 0)"),
    ("list-shaped", _write(b"[1, 2, 3]"), "not a manifest: holds a JSON list, expected an object"),
    ("deep", _write(b"[" * DEEP + b"]" * DEEP), "not a manifest: JSON nested too deeply"),
    ("deep-object", _write(b'{"a":' * DEEP + b"1" + b"}" * DEEP), "not a manifest: JSON nested too deeply"),
    (
        "not-json",
        _write(b"{'fabric': 1}"),
        "not JSON: Expecting property name enclosed in double quotes at line 1",
    ),
    (
        "hosts-a-list",
        _rewrite(lambda d: d.update(hosts=[1])),
        "malformed field: hosts is a JSON list, expected an object",
    ),
    (
        "host-a-string",
        _rewrite(lambda d: d["hosts"].update(gpu01="x")),
        "malformed field: hosts.gpu01 is a JSON string, expected an object",
    ),
    ("missing-field", _rewrite(lambda d: d.pop("fabric")), "missing field 'fabric'"),
    (
        "host-name-dotdot",
        _rewrite(_rename_host),
        "hosts key: '../../x' is not a safe name (letters, digits, '_', '.', '@', '-', not starting with "
        "'.' or '-', at most 253): artifact paths are built from it",
    ),
    (
        "netdev-escapes",
        _rewrite(lambda d: d["hosts"]["gpu01"]["nics"][0].update(netdev="../../../../etc/passwd")),
        "hosts.gpu01.nics[0].netdev: '../../../../etc/passwd' is not a safe name",
    ),
    (
        "pair-absolute",
        _rewrite(lambda d: d["pair_rounds"][0][0].update(client="/etc")),
        "pair_rounds[0][0].client: '/etc' is not a safe name",
    ),
    ("fifo", _fifo_manifest, "is a FIFO (only regular files are read)"),
    (
        "host-mtu-a-string",
        _rewrite(lambda d: d.update(host_mtu="9000")),
        "malformed field: host_mtu is a JSON string, expected a number",
    ),
    (
        "switch-port-mtu-a-list",
        _rewrite(lambda d: d["hosts"]["gpu01"]["nics"][1].update(switch_port_mtu=[9216])),
        "malformed field: hosts.gpu01.nics[1].switch_port_mtu is a JSON list, expected a number",
    ),
]


@pytest.mark.parametrize(
    ("spoil", "message"), [case[1:] for case in BROKEN_MANIFESTS], ids=[c[0] for c in BROKEN_MANIFESTS]
)
def test_a_broken_manifest_is_exit_2_naming_what_is_wrong(
    folder: Path, capsys: pytest.CaptureFixture[str], spoil: Callable[[Path], None], message: str
) -> None:
    spoil(folder)
    code = main(["--from-artifacts", str(folder), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    line = captured.err.strip()
    assert "\n" not in line
    assert line.startswith(f"gpunet-validate: {folder / 'manifest.json'}: {message}"), line


HOSTILE_TEXT = "[/bold] :x: [red]x <b>bold</b> | `tick` *star* &amp;"


def _hostile_capture(folder: Path) -> None:
    (folder / "hosts/gpu01/ibstat.txt").write_text(HOSTILE_TEXT + "\n")


def _table_is_literal(report: str) -> None:
    assert "[/bold] :x: [red]x <b>bold</b>" in report
    assert "❌" not in report


def _html_is_escaped(report: str) -> None:
    assert "&lt;b&gt;bold&lt;/b&gt;" in report
    assert "<b>bold" not in report


def _markdown_is_escaped(report: str) -> None:
    assert r"\[/bold\] :x: \[red\]x \<b>bold\</b> \| \`tick\` \*star\* \&amp;" in report
    assert re.search(r"(?<!\\)<b>", report) is None


def _junit_is_xml(report: str) -> None:
    messages = [element.get("message", "") for element in ElementTree.fromstring(report).iter("error")]
    assert any(HOSTILE_TEXT in message for message in messages)


# (format, what must hold of the report)
FORMATS: list[tuple[str, Callable[[str], None]]] = [
    ("table", _table_is_literal),
    ("html", _html_is_escaped),
    ("markdown", _markdown_is_escaped),
    ("junit", _junit_is_xml),
]


@pytest.mark.parametrize(("report_format", "holds"), FORMATS, ids=[f[0] for f in FORMATS])
def test_artifact_text_stays_text_in_every_format(
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    report_format: str,
    holds: Callable[[str], None],
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # the table folds no cell
    _hostile_capture(folder)
    code = main(["--from-artifacts", str(folder), "--format", report_format, "--no-color"])
    assert code == 3
    holds(capsys.readouterr().out)


# (catalog text, the whole stderr line after "gpunet-validate: <catalog>")
BROKEN_CATALOGS = [
    (
        "checks: [nic_qos]\nchecks: [ntp_offset]\n",
        ":2: YAML parsing failed: Found duplicate mapping key 'checks'.",
    ),
    (
        "x: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
        + "".join(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}' if i else '*a'] * 10)}]\n" for i in range(6)),
        ":6: YAML aliases expand to 12,345,685 nodes from 25: more than the 1,000,000 aliases may add "
        "(an alias bomb?)",
    ),
]


@pytest.mark.parametrize(("text", "line"), BROKEN_CATALOGS, ids=["duplicate-key", "alias-bomb"])
def test_a_hostile_catalog_is_a_usage_error(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: str
) -> None:
    catalog = tmp_path / "checks.yml"
    catalog.write_text(text)
    assert main(["--from-artifacts", str(folder), "--checks", str(catalog)]) == 2
    assert capsys.readouterr().err == f"gpunet-validate: {catalog}{line}\n"
