"""wait_for_sshd against a scripted podman: a node container that stops while booting is started
once more, and a second stop is reported with its exit code and logs, not as an exec failure."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gpunet.lab import nodes
from gpunet.lab.errors import LabError
from gpunet.lab.plan import LabNode

NODE = LabNode(host="gpu01", container="gpunet-lab-gpu01", interfaces=())
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1hYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFh root@gpu01"


class ScriptedPodman:
    """Answers exec by the container's scripted state: each `start` moves to the next boot."""

    def __init__(self, boots: list[list[str]]) -> None:
        self.boots: Iterator[list[str]] = iter(boots)  # per boot: the states seen on each poll
        self.states = iter(next(self.boots))
        self.state = "running"
        self.calls: list[tuple[str, ...]] = []

    def container_state(self, name: str) -> str:
        return self.state

    def run(self, *args: str, **_: object) -> str:
        self.calls.append(args)
        if args[0] == "start":
            self.states = iter(next(self.boots))
            return ""
        if args[0] == "inspect":
            return "137\n"
        if args[0] == "logs":
            return "systemd[1]: Freezing execution.\n"
        if args[0] == "exec":
            if args[2] == "systemctl":
                self.state = next(self.states, self.state)
            if self.state != "running":
                raise LabError(f"podman exec {NODE.container}: cannot exec in a stopped container")
            return KEY if args[2] == "cat" else ""
        raise AssertionError(f"unexpected podman {args}")


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes.time, "sleep", lambda _: None)


def test_a_container_that_stops_while_booting_is_started_once_more() -> None:
    podman = ScriptedPodman([["exited"], ["running"]])
    assert nodes.wait_for_sshd(podman, NODE) == " ".join(KEY.split()[:2])  # type: ignore[arg-type]
    assert [call for call in podman.calls if call[0] == "start"] == [("start", NODE.container)]


def test_a_second_stop_is_reported_with_its_exit_code_and_logs() -> None:
    podman = ScriptedPodman([["exited"], ["exited"]])
    with pytest.raises(LabError) as raised:
        nodes.wait_for_sshd(podman, NODE)  # type: ignore[arg-type]
    message = str(raised.value)
    assert message.startswith(f"{NODE.container} stopped while booting: exit code 137")
    assert "systemd[1]: Freezing execution." in message
    assert "gpunet lab down" in message
    assert len([call for call in podman.calls if call[0] == "start"]) == 1


def test_a_running_container_without_sshd_times_out_as_before() -> None:
    podman = ScriptedPodman([["running"]])
    podman.run = _never_active(podman.run)  # type: ignore[method-assign]
    with pytest.raises(LabError, match="sshd did not start within 0 s"):
        nodes.wait_for_sshd(podman, NODE, timeout_s=0)  # type: ignore[arg-type]


def _never_active(run):  # type: ignore[no-untyped-def]
    def wrapped(*args: str, **kwargs: object) -> str:
        if args[0] == "exec" and args[2] == "systemctl":
            raise LabError("ssh.service inactive")
        return run(*args, **kwargs)

    return wrapped
