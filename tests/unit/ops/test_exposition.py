"""gpunet writes the text exposition itself (report/exposition.py): the bytes must be the ones
prometheus_client's generate_latest writes for the same gauges, on every fixture scenario and on
label values and help texts that need escaping."""

from __future__ import annotations

import math

import pytest
from prometheus_client import generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import CollectorRegistry

from gpunet.validate.judge import judge
from gpunet.validate.report import exposition
from gpunet.validate.report.exposition import (
    Family,
    MadeSamples,
    exposition_chunks,
    exposition_text,
    write_atomically,
)
from gpunet.validate.report.prometheus import families
from tests.conftest import FIXTURES_DIR


def reference(found: list[Family]) -> str:
    """The same families through prometheus_client: a custom collector, then generate_latest."""

    class Collector:
        def collect(self):
            for family in found:
                gauge = GaugeMetricFamily(family.name, family.help, labels=list(family.labels))
                for values, value in family.samples:
                    gauge.add_metric(list(values), value)
                yield gauge

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector())
    return generate_latest(registry).decode()


@pytest.mark.parametrize("scenario", ["healthy", "bad_nic", "failed_nccl"])
@pytest.mark.parametrize("failures_only", [False, True])
def test_fixture_exposition_is_byte_equal_to_prometheus_client(scenario: str, failures_only: bool) -> None:
    verdict = judge(FIXTURES_DIR / "artifacts" / scenario, measure=True)
    found = families(
        verdict.results, verdict.manifest, verdict.measurements, verdict.pairs, failures_only=failures_only
    )
    assert sum(len(family.samples) for family in found) > 5
    assert exposition_text(found) == reference(found)


@pytest.mark.parametrize("chunk", [1, 3, 10_000])
@pytest.mark.parametrize("scenario", ["healthy", "bad_nic"])
def test_pieces_are_the_whole_exposition(scenario: str, chunk: int, monkeypatch, tmp_path) -> None:
    """Written piece by piece (229 MiB at 16,384 hosts): the same bytes, pieces of `chunk` lines."""
    verdict = judge(FIXTURES_DIR / "artifacts" / scenario, measure=True)
    found = families(verdict.results, verdict.manifest, verdict.measurements, verdict.pairs)
    monkeypatch.setattr(exposition, "CHUNK", chunk)
    pieces = list(exposition_chunks(found))
    assert "".join(pieces) == reference(found)
    labelled = sum(len(family.samples) for family in found if family.labels)
    assert len(pieces) > labelled // chunk  # no piece holds much more than `chunk` lines
    target = tmp_path / "gpunet.prom"
    write_atomically(target, iter(pieces))
    assert target.read_text() == reference(found)


AWKWARD = [
    Family("gpunet_plain", "no labels"),
    Family("gpunet_unlabelled", "a value", (), [((), 3.0)]),
    Family(
        "gpunet_escaped",
        'help with a \\ backslash\nand a line end and "quotes"',
        ("zeta", "alpha", "mid"),
        [
            (("back\\slash", 'quo"te', "line\nend"), 1.0),
            (("naïve", "Kelvin \u212a", ""), -0.0),
            (("a", "b", "c"), math.inf),
            (("a", "b", "d"), -math.inf),
            (("a", "b", "e"), math.nan),
            (("a", "b", "f"), 1e-05),
            (("a", "b", "g"), 1.7961656213046653e09),
            (("a", "b", "h"), 12345678901234567890),
            (("a", "b", "i"), 0),
        ],
    ),
]


def test_escaping_ordering_and_numbers_match_prometheus_client() -> None:
    text = exposition_text(AWKWARD)
    assert text == reference(AWKWARD)
    parsed = {family.name: family for family in text_string_to_metric_families(text)}
    first = parsed["gpunet_escaped"].samples[0]
    assert first.labels == {"zeta": "back\\slash", "alpha": 'quo"te', "mid": "line\nend"}


@pytest.mark.parametrize(
    ("name", "labels"),
    [
        ("gpunet bad", ()),
        ("gpunet_ok", ("bad-label",)),
        ("gpunet_ok", ("__reserved",)),
        ("gpunet_ok", ("a", "a")),
    ],
)
def test_invalid_names_are_refused(name: str, labels: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="invalid"):
        Family(name, "help", labels)


def test_write_atomically_replaces_the_file_and_leaves_no_temporary(tmp_path) -> None:
    target = tmp_path / "gpunet.prom"
    target.write_text("# old\n")
    inode = target.stat().st_ino
    write_atomically(target, "gpunet_x 1.0\n")
    assert target.read_text() == "gpunet_x 1.0\n"
    assert target.stat().st_ino != inode
    assert [path.name for path in tmp_path.iterdir()] == ["gpunet.prom"]


def test_write_atomically_leaves_the_old_file_when_writing_fails(tmp_path, monkeypatch) -> None:
    target = tmp_path / "gpunet.prom"
    target.write_text("# old\n")

    def refuse(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("gpunet.validate.report.exposition.os.replace", refuse)
    with pytest.raises(OSError, match="No space"):
        write_atomically(target, "gpunet_x 1.0\n")
    assert target.read_text() == "# old\n"
    assert [path.name for path in tmp_path.iterdir()] == ["gpunet.prom"]


def test_made_samples_are_made_again_for_every_pass_and_never_held() -> None:
    """The measured families' samples (2 million at 16,384 hosts) are made as they are written:
    every pass makes them again, and the family holds no list to add to."""
    passes = []

    def made():
        passes.append(len(passes))
        return iter([(("leaf01", "Ethernet0"), 1520.0), (("leaf01", "Ethernet4"), 0.0)])

    family = Family("gpunet_made", "made samples", ("switch", "port"), MadeSamples(made))
    listed = Family("gpunet_made", "made samples", ("switch", "port"), list(made()))
    assert exposition_text([family]) == exposition_text([family]) == exposition_text([listed])
    assert exposition_text([family]) == reference([listed])
    assert len(family.samples) == 2 and len(passes) == 5  # `listed`, three texts, len: each afresh
    with pytest.raises(TypeError, match="gpunet_made: its samples are made"):
        family.add(("leaf01", "Ethernet8"), 1.0)
