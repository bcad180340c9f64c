"""Multi-ASIC SONiC (issue 29): a switch whose inventory gives gpunet_switch_asics > 1 is read once
per namespace (`-n asic<k>`, sonic-utilities utilities_common/multi_asic.py at 691b1bb), the
answers saved in one capture, each after a `# gpunet: namespace` line, merged so that a port is
judged from the namespace that owns it; a switch of one ASIC is read without -n as before."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from gpunet.collect import switch_show as switch_collect
from gpunet.collect.switch_commands import SWITCH_COMMANDS
from gpunet.lab.switchsim.personalities.sonic import SonicPersonality
from gpunet.lab.switchsim.state import SwitchState
from gpunet.model.fabric import Switch
from gpunet.netdev.push import Connection
from gpunet.validate.judge import judge
from gpunet.validate.parsers import ParseError, parse
from gpunet.validate.results import Status
from tests.conftest import FIXTURES_DIR
from tests.unit.validate.test_parsers import dig

_WRED = {
    "ecn": "ecn_all",
    "green_min_threshold": "153600",
    "green_max_threshold": "1536000",
    "wred_green_enable": "true",
}


def _asic(ports: list[str], offset: int, pfc_enable: str = "3,4", green_min: str = "153600") -> SwitchState:
    """One ASIC's namespace as the simulator prints it: its own ports, PORT_QOS_MAP, WRED_PROFILE
    and counters (values differ per ASIC, so a value read from the wrong namespace shows)."""
    state = SwitchState(platform="sonic", hostname="lc1", ports=ports)
    state.config["PORT_QOS_MAP"] = {port: {"pfc_enable": pfc_enable} for port in ports}
    state.config["WRED_PROFILE"] = {"AZURE_LOSSLESS": {**_WRED, "green_min_threshold": green_min}}
    for index, port in enumerate(ports):
        state.counters[port]["rx_pfc"][3] = offset + index
        state.counters[port]["tx_queue"] = [offset + 10 * index + queue for queue in range(8)]
        state.counters[port]["tx_drop"] = [0, 0, 0, offset + index, 0, 0, 0, 0]
    return state


_NAMESPACE = re.compile(r" -n (asic\d+)\b")


class _MultiAsicSonic:
    """A multi-ASIC SONiC switch's shell: a command with `-n asic<k>` is answered by that ASIC's
    simulated namespace; without -n, as the host answers: sonic-db-cli reads the host's empty
    COUNTERS_DB, the show commands print every namespace in turn (ecnconfig -l: the profiles of
    each namespace, none named, scripts/ecnconfig list() at 691b1bb)."""

    def __init__(self, asics: list[SwitchState]) -> None:
        self.namespaces = []
        for state in asics:
            personality = SonicPersonality.__new__(SonicPersonality)
            personality.state, personality.heredoc, personality.asking = state, None, None
            self.namespaces.append(personality)
        self.sent: list[str] = []

    def send_command(self, command: str, read_timeout: int) -> str:
        self.sent.append(command)
        if match := _NAMESPACE.search(command):
            index = int(match[1].removeprefix("asic"))
            if index >= len(self.namespaces):
                return f"Error: Invalid value for '-n' / '--namespace': '{match[1]}' is not one of ..."
            return self.namespaces[index].handle(_NAMESPACE.sub("", command, count=1))
        if command.startswith("sonic-db-cli"):
            return "{}"
        return "\n\n".join(personality.handle(command) for personality in self.namespaces)

    def disconnect(self) -> None:
        pass


_ASIC0 = ["Ethernet0", "Ethernet4"]
_ASIC1 = ["Ethernet8", "Ethernet12"]


def _collect(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, asics: int, session: _MultiAsicSonic) -> Path:
    monkeypatch.setattr(switch_collect, "connector", lambda *args, **kwargs: lambda: session)
    switch = Switch("lc1", "sonic", "leaf", "127.0.0.1", 22, (), mgmt_user="admin", asics=asics)
    switch_collect.collect_switch_show(switch, Connection("pw", host_key_checking=False), "after", tmp_path)
    return tmp_path / "switches" / "lc1" / "after"


@pytest.mark.parametrize("asics", [1, 2, 3])
def test_each_namespace_is_read_with_n_and_one_asic_without(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, asics: int
) -> None:
    states = [_asic([f"Ethernet{8 * k}", f"Ethernet{8 * k + 4}"], 100 * k) for k in range(asics)]
    session = _MultiAsicSonic(states)
    folder = _collect(monkeypatch, tmp_path, asics, session)
    namespaced = [command for command in session.sent if " -n " in command]
    if asics == 1:
        assert namespaced == []
        assert "show ecn" in session.sent
        assert not (folder / "sonic-show-ecn.txt").read_text().startswith("# gpunet")
        return
    # Never the host's answer (every namespace's tables in turn, or an empty COUNTERS_DB).
    assert not set(SWITCH_COMMANDS["sonic"].values()) & set(session.sent)
    assert not [c for c in session.sent if c.startswith("sonic-db-cli") and " -n " not in c]
    maps = [c for c in session.sent if "HGETALL COUNTERS_PORT_NAME_MAP" in c]
    assert maps == [
        f"sonic-db-cli -n asic{k} -j COUNTERS_DB HGETALL COUNTERS_PORT_NAME_MAP" for k in range(asics)
    ]
    forms = json.loads((folder / switch_collect.FORMS_FILE).read_text())
    for tool in SWITCH_COMMANDS["sonic"]:
        commands = [record["command"] for record in forms[tool]["namespaces"].values()]
        assert [re.findall(r"-n (asic\d+)", command) for command in commands] == [
            [f"asic{k}"] for k in range(asics)
        ], tool
        text = (folder / f"{tool}.txt").read_text()
        assert re.findall(r"^# gpunet: namespace (asic\d+) of (\d+): ", text, re.M) == [
            (f"asic{k}", str(asics)) for k in range(asics)
        ]
    assert forms["sonic-show-pfc-counters"]["form"] == "json"
    assert forms["sonic-show-ecn"]["form"] == "text"


# (tool, subset, path, expected): each value from the namespace that owns the port.
READS: list[tuple[str, str | None, str, Any]] = [
    ("sonic-show-pfc-priority", None, "interfaces.Ethernet4", [3, 4]),
    ("sonic-show-pfc-priority", None, "interfaces.Ethernet12", [3]),
    ("sonic-show-pfc-priority", None, "namespace.Ethernet12", "asic1"),
    ("sonic-show-pfc-counters", None, "rx.Ethernet0.3", 100),
    ("sonic-show-pfc-counters", None, "rx.Ethernet12.3", 201),
    ("sonic-show-pfc-counters", None, "namespace.Ethernet8", "asic1"),
    ("sonic-show-queue-counters", "UC3", "uc3.Ethernet12", {"port": "Ethernet12", "queue": "UC3",
     "counter_pkts": 213, "counter_bytes": 213 * 1024, "drop_pkts": 201, "drop_bytes": 201 * 1024}),
    ("sonic-show-queue-counters", None, "namespace.Ethernet4", "asic0"),
    ("sonic-show-ecn", None, "namespace_profiles.asic0.AZURE_LOSSLESS.green_min_threshold", 153600),
    ("sonic-show-ecn", None, "namespace_profiles.asic1.AZURE_LOSSLESS.green_min_threshold", 262144),
    ("sonic-show-ecn", None, "profiles.asic1:AZURE_LOSSLESS.ecn", "ecn_all"),
]  # fmt: skip


@pytest.mark.parametrize("release", [None, "202305"])  # 202305: sonic-db-cli without -j
@pytest.mark.parametrize(("tool", "subset", "path", "expected"), READS)
def test_the_namespaces_are_merged_each_port_from_its_own(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    release: str | None,
    tool: str,
    subset: str | None,
    path: str,
    expected: Any,
) -> None:
    states = [_asic(_ASIC0, 100), _asic(_ASIC1, 200, pfc_enable="3", green_min="262144")]
    for state in states:
        state.os_version = release
    folder = _collect(monkeypatch, tmp_path, 2, _MultiAsicSonic(states))
    parsed = parse(tool, (folder / f"{tool}.txt").read_text(), subset)
    if subset is not None:  # the rows by port (queuestat -j prints the ports in key order)
        parsed["uc3"] = {row["port"]: row for row in parsed["queues"]}
        assert len(parsed["uc3"]) == len(parsed["queues"]) == 4
    assert dig(parsed, path) == expected


def _section(namespace: str, count: int, command: str, body: str) -> str:
    return f"# gpunet: namespace {namespace} of {count}: {command} -n {namespace}\n{body}\n"


_ECN0 = "\n".join(["Profile: AZURE_LOSSLESS", "---  -------", "ecn  ecn_all", "---  -------"])
_PRIO = "Interface    Lossless priorities\n-----------  ---------------------\n{port}    3"
REFUSALS = [
    ("sonic-show-ecn", _section("asic0", 2, "show ecn", _ECN0), "ends after namespace asic0, of the 2"),
    ("sonic-show-ecn", _section("asic0", 2, "show ecn", _ECN0) + _section("asic0", 2, "show ecn", _ECN0),
     "namespace asic0 where asic1 was expected"),
    ("sonic-show-ecn", _section("asic0", 2, "show ecn", _ECN0) + _section("asic1", 3, "show ecn", _ECN0),
     "3 namespaces, where line 1 says 2"),
    # An image before sonic-utilities #3062 (e4df80a5c, 2024-08) has no `show ecn -n`.
    ("sonic-show-ecn", _section("asic0", 2, "show ecn", _ECN0)
     + _section("asic1", 2, "show ecn", "Usage: show ecn [OPTIONS]\n\nError: No such option: -n"),
     "namespace asic1: no 'Profile:' block"),
    ("sonic-show-pfc-priority", _section("asic0", 2, "show pfc priority", _PRIO.format(port="Ethernet0"))
     + _section("asic1", 2, "show pfc priority", _PRIO.format(port="Ethernet0")),
     "Ethernet0 is listed in namespaces asic0 and asic1"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "text", "reason"), REFUSALS)
def test_a_damaged_per_namespace_capture_is_refused_by_name(tool: str, text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=re.escape(reason)):
        parse(tool, text)


# ---- judged: the healthy fixture's leaf07, its ports split over two ASICs ----
HEALTHY = FIXTURES_DIR / "artifacts" / "healthy"
_COMMANDS = SWITCH_COMMANDS["sonic"]
_PORT_ROW = re.compile(r"^\s*(Ethernet\d+)\s")


def _owner(port: str) -> str:
    return "asic1" if int(port.removeprefix("Ethernet")) >= 64 else "asic0"


def _split(tool: str, text: str) -> dict[str, str]:
    """The capture as each namespace prints it: its own ports' rows (the ECN profiles: all)."""
    if tool == "sonic-show-ecn":
        return {"asic0": text, "asic1": text}
    kept: dict[str, list[str]] = {"asic0": [], "asic1": []}
    for line in text.splitlines():
        match = _PORT_ROW.match(line)
        for namespace, lines in kept.items():
            if match is None or _owner(match[1]) == namespace:
                lines.append(line)
    return {namespace: "\n".join(lines) for namespace, lines in kept.items()}


JUDGED = [
    ("two healthy namespaces", None, None, "", "", set()),
    ("asic0's WRED profile off the design", "sonic-show-ecn", "asic0", "green_min_threshold      153600",
     "green_min_threshold      1048576", {("switch_ecn", "leaf07", Status.FAIL)}),
    ("asic1's WRED profile off the design", "sonic-show-ecn", "asic1", "green_min_threshold      153600",
     "green_min_threshold      1048576", {("switch_ecn", "leaf07", Status.FAIL)}),
    ("a port of asic1 without PFC 3", "sonic-show-pfc-priority", "asic1", "Ethernet96   3", "Ethernet96   4",
     {("switch_pfc", "leaf07:Ethernet96", Status.FAIL)}),
    ("asic0's PFC table lists a port of asic1", "sonic-show-pfc-priority", "asic0", "Ethernet0    3",
     "Ethernet0    3\nEthernet96   3", {("switch_pfc", "leaf07", Status.ERROR)}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "tool", "namespace", "old", "new", "expected"), JUDGED, ids=[c[0] for c in JUDGED]
)
def test_a_multi_asic_switch_is_judged_per_namespace(
    tmp_path: Path, case: str, tool: str | None, namespace: str | None, old: str, new: str, expected: set
) -> None:
    folder = tmp_path / "artifacts"
    shutil.copytree(HEALTHY, folder)
    for phase in ("before", "after"):
        for name, command in _COMMANDS.items():
            path = folder / "switches" / "leaf07" / phase / f"{name}.txt"
            if not path.exists():
                continue
            parts = _split(name, path.read_text())
            if name == tool and phase == "after":
                assert old in parts[namespace], "the fixture no longer holds the line this case edits"
                parts[namespace] = parts[namespace].replace(old, new, 1)
            path.write_text("".join(_section(ns, 2, command, body) for ns, body in parts.items()))
    results = judge(folder).results
    problems = {
        (r.check, r.target, r.status) for r in results if r.status not in (Status.PASS, Status.NOT_CHECKED)
    }
    assert problems == expected
    assert any(r.check == "switch_ecn" and r.target == "leaf07" and "asic1: " in r.actual for r in results)
