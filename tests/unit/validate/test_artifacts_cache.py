"""How long a judgement holds parsed files: each parsed once, dropped when no later check reads
them, and only a short window of them for the tools the running check is the last to read."""

from __future__ import annotations

import pytest

from gpunet.validate import artifacts as artifacts_module
from gpunet.validate.artifacts import RECENT_FILES, Artifacts
from gpunet.validate.judge import judge
from tests.conftest import FIXTURES_DIR

HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each file read and parsed, in order."""
    seen: list[str] = []
    real = artifacts_module._parse_file

    def counting(path: str, tool: str, relative: str):
        seen.append(relative)
        return real(path, tool, relative) if tool != "fake" else {"file": relative}

    monkeypatch.setattr(artifacts_module, "_parse_file", counting)
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
