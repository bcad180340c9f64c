"""The real consumers of gpunet's Prometheus files: Debian's promtool lints every file gpunet
writes, and a real node_exporter (textfile collector, 127.0.0.1 only) serves the series."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpunet.validate.cli import main
from gpunet.validate.judge import judge
from gpunet.validate.report.prometheus import NODE_CHECK, exposition, write_textfile
from tests.conftest import FIXTURES_DIR

ARTIFACTS = FIXTURES_DIR / "artifacts"
SCENARIOS = ["healthy", "bad_nic", "failed_nccl"]
NODE_EXPORTER = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
PROMTOOL = shutil.which("promtool")


def write_metrics(scenario: str, path: Path) -> int:
    return main(
        ["--from-artifacts", str(ARTIFACTS / scenario), "--format", "prometheus", "--output", str(path)]
    )


@pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package prometheus) is not installed")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_promtool_accepts_every_file_gpunet_writes(scenario: str, tmp_path: Path) -> None:
    path = tmp_path / "gpunet.prom"
    write_metrics(scenario, path)
    done = subprocess.run(
        [PROMTOOL, "check", "metrics"], input=path.read_text(), capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stdout + done.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def node_exporter(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A node_exporter with only the textfile collector, on a free 127.0.0.1 port."""
    if NODE_EXPORTER is None:
        pytest.skip("prometheus-node-exporter (Debian package) is not installed")
    textfiles = tmp_path / "textfile"
    textfiles.mkdir()
    address = f"127.0.0.1:{free_port()}"
    process = subprocess.Popen(
        [
            NODE_EXPORTER,
            f"--web.listen-address={address}",
            "--collector.disable-defaults",
            "--collector.textfile",
            f"--collector.textfile.directory={textfiles}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://{address}/metrics"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                scrape(url)
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail(f"node_exporter did not serve {url}: {process.stderr.read().decode()[-500:]}")
                time.sleep(0.2)
        yield textfiles, url
    finally:
        process.terminate()
        process.wait(timeout=10)


def scrape(url: str) -> dict[tuple[str, frozenset], float]:
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_node_exporter_serves_gpunet_series(node_exporter: tuple[Path, str]) -> None:
    textfiles, url = node_exporter
    assert write_metrics("bad_nic", textfiles / "gpunet.prom") == 4
    found = scrape(url)
    nic = {"host": "gpu03", "nic": "mlx5_2", "rail": "2", "switch": "leaf03", "port": "Ethernet3/1"}
    failed = {
        "source": "validate",
        "check": "nic_port_state",
        "category": "nic",
        "target": "gpu03:mlx5_2",
        **nic,
        "status": "fail",
    }
    assert found[("gpunet_check_status", frozenset(failed.items()))] == 1.0
    assert found[("gpunet_validate_exit_code", frozenset({"source": "validate"}.items()))] == 4.0
    assert found[("gpunet_ntp_offset_seconds", frozenset({"host": "gpu01"}.items()))] == pytest.approx(
        4.1e-05
    )
    # The collector read the file without complaint.
    assert found[("node_textfile_scrape_error", frozenset())] == 0.0


def test_a_rewrite_replaces_the_series_the_collector_serves(node_exporter: tuple[Path, str]) -> None:
    textfiles, url = node_exporter
    write_metrics("bad_nic", textfiles / "gpunet.prom")
    assert scrape(url)[("gpunet_validate_exit_code", frozenset({"source": "validate"}.items()))] == 4.0
    write_metrics("healthy", textfiles / "gpunet.prom")
    found = scrape(url)
    assert found[("gpunet_validate_exit_code", frozenset({"source": "validate"}.items()))] == 0.0
    assert found[("node_textfile_scrape_error", frozenset())] == 0.0
    assert sorted(p.name for p in textfiles.iterdir()) == ["gpunet.prom"]


def test_a_fabric_file_and_a_node_file_share_one_collector(node_exporter: tuple[Path, str]) -> None:
    """The same check and target from gpunet-validate and from node-check differ by `source`."""
    textfiles, url = node_exporter
    write_metrics("healthy", textfiles / "gpunet-fabric.prom")
    verdict = judge(ARTIFACTS / "bad_nic")
    node_results = [result for result in verdict.results if result.group == "gpu03"]
    node_file = textfiles / "gpunet-node.prom"
    write_textfile(node_file, exposition(node_results, verdict.manifest, source=NODE_CHECK))
    found = scrape(url)
    assert found[("node_textfile_scrape_error", frozenset())] == 0.0
    exit_codes = {
        dict(labels)["source"]: value
        for (name, labels), value in found.items()
        if name == "gpunet_validate_exit_code"
    }
    assert exit_codes == {"validate": 0.0, "node-check": 4.0}
