"""How long a judgement holds parsed files: each parsed once, dropped when no later check reads
them, and only a short window of them for the tools the running check is the last to read."""

from __future__ import annotations

import pytest

from gpunet.validate import artifacts as artifacts_module
from gpunet.validate.artifacts import RECENT_FILES, SAME_TEXT_MAX_BYTES, SAME_TEXTS, Artifacts, InputError
from gpunet.validate.judge import judge
from gpunet.validate.manifest import read_manifest
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each file read and parsed, in order."""
    seen: list[str] = []
    real = Artifacts._parse_file

    def counting(self: Artifacts, path: str, tool: str, relative: str, subset: str | None = None):
        seen.append(relative)
        return real(self, path, tool, relative, subset) if tool != "fake" else {"file": relative}

    monkeypatch.setattr(Artifacts, "_parse_file", counting)
    return seen


@pytest.fixture
def texts_parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every parse that ran (not answered from an identical capture)."""
    seen: list[str] = []
    real = artifacts_module.parse

    def counting(tool: str, text: str, subset: str | None = None):
        seen.append(text)
        return real(tool, text, subset)

    monkeypatch.setattr(artifacts_module, "parse", counting)
    return seen


# (tools forgotten after use, other files of the tool read in between, parses of the first file)
WINDOW = [
    (set(), RECENT_FILES * 2, 1),  # not the last reader: kept for the whole check
    ({"fake"}, 0, 1),  # read again at once: in the window
    ({"fake"}, RECENT_FILES - 1, 1),  # still in the window
    ({"fake"}, RECENT_FILES, 2),  # pushed out: parsed again, never stale
]


@pytest.mark.parametrize(("transient", "between", "expected"), WINDOW)
def test_files_of_a_last_reader_stay_only_in_a_short_window(
    parses: list[str], transient: set[str], between: int, expected: int
) -> None:
    artifacts = Artifacts(HEALTHY)
    artifacts.forget_after_use(transient)
    first = artifacts.parsed("switches/leaf01/after/first.txt", "fake")
    for index in range(between):
        artifacts.parsed(f"switches/leaf01/after/other{index}.txt", "fake")
    assert artifacts.parsed("switches/leaf01/after/first.txt", "fake") == first
    assert parses.count("switches/leaf01/after/first.txt") == expected


def test_keep_only_drops_what_no_later_check_reads(parses: list[str]) -> None:
    artifacts = Artifacts(HEALTHY)
    artifacts.parsed("hosts/gpu01/a.txt", "fake")
    artifacts.keep_only({"fake"})
    artifacts.parsed("hosts/gpu01/a.txt", "fake")
    assert parses.count("hosts/gpu01/a.txt") == 1
    artifacts.keep_only(set())
    artifacts.parsed("hosts/gpu01/a.txt", "fake")
    assert parses.count("hosts/gpu01/a.txt") == 2


def test_a_judgement_parses_each_file_once(parses: list[str]) -> None:
    judge(HEALTHY, jobs=1)  # in this process, where the parses are counted
    assert len(parses) > 200
    assert sorted({path for path in parses if parses.count(path) > 1}) == []


QOS = (HEALTHY / "hosts" / "gpu01" / "mlnx_qos.enp24s0np0.txt").read_text()
CHRONY = (HEALTHY / "hosts" / "gpu01" / "chronyc-tracking.txt").read_text()


def capture_folder(tmp_path, files: dict[str, str]) -> Artifacts:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    return Artifacts(tmp_path, read_manifest(HEALTHY))


def test_identical_configuration_captures_are_parsed_once(tmp_path, texts_parsed: list[str]) -> None:
    artifacts = capture_folder(tmp_path, {f"hosts/gpu0{n}/mlnx_qos.rail0.txt": QOS for n in (1, 2, 3)})
    found = [artifacts.host(f"gpu0{n}", "mlnx_qos", "rail0") for n in (1, 2, 3)]
    assert len(texts_parsed) == 1
    assert found[0] == found[1] == found[2] and found[0]["trust"] == "dscp"


def test_identical_measurements_are_parsed_each_time(tmp_path, texts_parsed: list[str]) -> None:
    """chrony, perftest, counters: in a real fabric no two are alike, so none is looked up."""
    artifacts = capture_folder(tmp_path, {f"hosts/gpu0{n}/chronyc-tracking.txt": CHRONY for n in (1, 2)})
    assert artifacts.host("gpu01", "chronyc-tracking") == artifacts.host("gpu02", "chronyc-tracking")
    assert len(texts_parsed) == 2


def test_a_different_capture_or_tool_is_parsed_on_its_own(tmp_path, texts_parsed: list[str]) -> None:
    other = QOS.replace("Cable len: 3", "Cable len: 7")
    assert other != QOS
    artifacts = capture_folder(
        tmp_path, {"hosts/gpu01/mlnx_qos.rail0.txt": QOS, "hosts/gpu02/mlnx_qos.rail0.txt": other}
    )
    first, second = artifacts.host("gpu01", "mlnx_qos", "rail0"), artifacts.host("gpu02", "mlnx_qos", "rail0")
    assert (first["cable_length_m"], second["cable_length_m"]) == (3, 7)
    with pytest.raises(InputError):  # the same bytes read as another tool: that tool's parse
        artifacts.parsed("hosts/gpu01/mlnx_qos.rail0.txt", "sonic-show-ecn")
    assert len(texts_parsed) == 3


def test_an_unreadable_capture_is_not_remembered_each_copy_names_its_file(tmp_path) -> None:
    artifacts = capture_folder(tmp_path, {f"hosts/gpu0{n}/mlnx_qos.rail0.txt": "garbage\n" for n in (1, 2)})
    for n in (1, 2):
        with pytest.raises(InputError, match=f"hosts/gpu0{n}/mlnx_qos.rail0.txt"):
            artifacts.host(f"gpu0{n}", "mlnx_qos", "rail0")


def test_large_captures_and_old_texts_are_parsed_again(tmp_path, texts_parsed: list[str]) -> None:
    padded = QOS + " " * SAME_TEXT_MAX_BYTES  # trailing blanks change no value
    files = {f"hosts/big{n}/mlnx_qos.rail0.txt": padded for n in (1, 2)}
    files |= {f"hosts/h{n}/mlnx_qos.rail0.txt": QOS + "\n" * n for n in range(SAME_TEXTS + 1)}
    artifacts = capture_folder(tmp_path, files)
    artifacts.host("big1", "mlnx_qos", "rail0"), artifacts.host("big2", "mlnx_qos", "rail0")
    assert len(texts_parsed) == 2  # over the size bound: not remembered
    for n in range(SAME_TEXTS + 1):
        artifacts.host(f"h{n}", "mlnx_qos", "rail0")
    artifacts.keep_only(set())  # the files themselves forgotten: only the text memory answers
    artifacts.host(f"h{SAME_TEXTS}", "mlnx_qos", "rail0")
    assert len(texts_parsed) == 2 + SAME_TEXTS + 1  # the newest text is remembered
    artifacts.host("h0", "mlnx_qos", "rail0")
    assert len(texts_parsed) == 2 + SAME_TEXTS + 2  # the oldest was pushed out
