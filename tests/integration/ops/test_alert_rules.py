"""docs/prometheus and docs/grafana: promtool checks the rules and runs their unit tests, and
every series the rules and the dashboard query is one gpunet writes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from gpunet.validate.judge import judge
from gpunet.validate.report.prometheus import render_prometheus
from tests.conftest import FIXTURES_DIR, REPO_ROOT

RULES = REPO_ROOT / "docs" / "prometheus" / "gpunet-alerts.yml"
RULE_TESTS = REPO_ROOT / "docs" / "prometheus" / "gpunet-alerts.test.yml"
DASHBOARD = REPO_ROOT / "docs" / "grafana" / "gpunet-dashboard.json"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool (Debian package prometheus) not installed"
)
SERIES = re.compile(r"\bgpunet_[a-z_]+\b")


def promtool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PROMTOOL, *args], capture_output=True, text=True, timeout=60, check=False, cwd=RULES.parent
    )


@needs_promtool
def test_promtool_accepts_the_alert_rules() -> None:
    done = promtool("check", "rules", RULES.name)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 4 rules found" in done.stdout


@needs_promtool
def test_the_alerts_fire_as_their_unit_tests_say() -> None:
    done = promtool("test", "rules", RULE_TESTS.name)
    assert done.returncode == 0, done.stdout + done.stderr


def written_series() -> set[str]:
    text = render_prometheus(judge(FIXTURES_DIR / "artifacts" / "healthy"))
    return {family.name for family in text_string_to_metric_families(text)}


def queried_series() -> dict[str, set[str]]:
    rules = yaml.safe_load(RULES.read_text())
    found = {
        rule["alert"]: set(SERIES.findall(rule["expr"]))
        for group in rules["groups"]
        for rule in group["rules"]
    }
    for panel in json.loads(DASHBOARD.read_text())["panels"]:
        found[panel["title"]] = {
            name for target in panel["targets"] for name in SERIES.findall(target["expr"])
        }
    return found


@pytest.mark.parametrize(("user", "names"), sorted(queried_series().items()))
def test_rules_and_dashboard_query_only_series_gpunet_writes(user: str, names: set[str]) -> None:
    assert names, f"{user} queries no gpunet series"
    assert names <= written_series(), f"{user} queries {sorted(names - written_series())}"


def test_check_names_in_the_rules_are_catalog_checks() -> None:
    from gpunet.validate.checks import CHECKS

    for name in re.findall(r'check=~?"([^"]+)"', RULES.read_text()):
        assert set(name.split("|")) <= set(CHECKS), name
