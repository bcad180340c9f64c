"""JSON report: summary, exit code and every result, for machines.

Written with orjson (https://github.com/ijl/orjson, README "Serialize": dataclasses and enums are
serialized natively, `OPT_INDENT_2`), which writes the results straight from their dataclasses.
Indented up to `PRETTY_MAX_RESULTS` results, for a person reading a small fabric's report; compact
beyond, where nobody reads it by eye: at 4,096 hosts the indented report was 145 MiB and took
longer to write than to judge. Same document either way (`json.loads` gives equal values).
"""

from __future__ import annotations

from dataclasses import asdict

import orjson

from gpunet.validate.judge import Verdict
from gpunet.validate.results import counts, exit_code

PRETTY_MAX_RESULTS = 10_000


def render_json(verdict: Verdict) -> str:
    document = {
        "fabric": verdict.manifest.fabric,
        "summary": counts(verdict.results),
        "exit_code": exit_code(verdict.results),
        "thresholds": asdict(verdict.manifest.thresholds),
        "results": verdict.results,
        "pairs": verdict.pairs,
    }
    option = orjson.OPT_INDENT_2 if len(verdict.results) <= PRETTY_MAX_RESULTS else 0
    return orjson.dumps(document, option=option).decode() + "\n"
