"""CaselessWords finds exactly what a re.IGNORECASE search finds, on ASCII and non-ASCII text."""

from __future__ import annotations

import re

import pytest

from gpunet.validate.parsers import nccl_tests, perftest
from gpunet.validate.parsers.base import CaselessWords

PATTERNS = [
    r"couldn't|could not|unable|failed|failure|error|no .*device|not found|timed? ?out|refused",
    r"(Test NCCL failure|NCCL error|ncclSystemError|Segmentation fault|\bfailed with error\b)",
    r"(NCCL WARN|ORTE|error)",
    r"[A-Z]+\d\b|\Wtimeout\S",  # classes and escapes keep their meaning when the letters are lowered
]
TEXTS = [
    "Couldn't find device mlx5_0",
    "COULD NOT connect",
    "no IB device found",
    "No such\ndevice",  # `.` stops at the line end in both
    "timeout",
    "time out",
    "Timed Out",
    "misc: NCCLSYSTEMERROR in transport",
    "srun: prefailed with errors",  # no word boundary around "failed with error"
    "the run failed with error 3",
    "nccl warn: something",
    "orte_plm: launch",
    "ABC1 ",
    "x timeoutz",
    "fine output with no words",
    "\u212a",  # KELVIN SIGN: matches k under IGNORECASE
    "unable \u00e9t\u00e9",  # non-ASCII: the IGNORECASE search itself
    "CO\u212aLD",
    "",
]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("text", TEXTS)
def test_same_answer_as_ignorecase(pattern: str, text: str) -> None:
    assert CaselessWords(pattern).search(text) == bool(re.search(pattern, text, re.IGNORECASE))


def test_the_parsers_use_it() -> None:
    assert isinstance(perftest._ERROR, CaselessWords)
    assert isinstance(nccl_tests._FAILURE, CaselessWords) and isinstance(nccl_tests._WARNING, CaselessWords)


# One text per alternative of the parsers' own patterns, in odd case and inside other words or
# lines: the needles they are given must let every one through (and plain text none).
ALTERNATIVES = [
    "x COULDN'T y", "could Not", "Unable to", "it FAILED", "Failure", "eRRor", "no ib DEVICE",
    "not Found", "timeout", "TIME OUT", "timed out", "timedout", "conn Refused",
    "Test NCCL failure", "test CUDA Failure", "Test failure", "NCCL failure", "CUDA failure", "NCCL error",
    "ncclSystemError", "ncclInternalError", "ncclUnhandledCudaError", "ncclRemoteError", "ncclInvalidUsage",
    "ncclInvalidArgument", "Segmentation fault", "Bus error", "ABORTED", "(core dumped)", "exited on signal",
    "Non-Zero Status", "mpirun noticed that", "srun: error: node", "the step failed with error 3",
    "NCCL WARN net", "ORTE has lost", "plain output 123", "",
]  # fmt: skip


@pytest.mark.parametrize(
    "words",
    [perftest._ERROR, nccl_tests._FAILURE, nccl_tests._WARNING],
    ids=["perftest", "nccl-failure", "nccl-warning"],
)
@pytest.mark.parametrize("text", ALTERNATIVES)
def test_needles_let_every_match_through(words: CaselessWords, text: str) -> None:
    for padded in (text, f"line one\n  {text}  \nline three"):
        assert words.search(padded) == bool(words._caseless.search(padded))
