"""JSON report: summary, exit code and every result, for machines."""

from __future__ import annotations

import json
from dataclasses import asdict

from gpunet.validate.judge import Verdict
from gpunet.validate.results import counts, exit_code


def render_json(verdict: Verdict) -> str:
    document = {
        "fabric": verdict.manifest.fabric,
        "summary": counts(verdict.results),
        "exit_code": exit_code(verdict.results),
        "thresholds": asdict(verdict.manifest.thresholds),
        "results": [result.as_dict() for result in verdict.results],
        "pairs": [asdict(pair) for pair in verdict.pairs],
    }
    return json.dumps(document, indent=2) + "\n"
