"""The SSH side of the simulator: asyncssh servers on 127.0.0.1, many switches per process.

LAB EQUIPMENT. `SimulatorFleet` runs an event loop in a background thread so tests and
benchmarks can start hundreds of simulated switches in-process.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from gpunet.lab.switchsim.personalities import PERSONALITIES
from gpunet.lab.switchsim.personalities.base import Personality
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import DropSession, SimOptions, SimulatedSwitch

# cryptography 51 deprecates DSA, and asyncssh names its DSA key types when imported: a warning on
# every simulator start that concerns no key the simulator offers (Ed25519 host keys only).
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="DSA is deprecated", module="asyncssh")
    import asyncssh

LISTEN_ADDRESS = "127.0.0.1"  # the simulator never listens anywhere else


class _Server(asyncssh.SSHServer):
    def __init__(self, switch: SimulatedSwitch) -> None:
        self.switch = switch

    def password_auth_supported(self) -> bool:
        return True

    def public_key_auth_supported(self) -> bool:
        return self.switch.options.authorized_keys is not None

    def begin_auth(self, username: str) -> bool:
        keys = self.switch.options.authorized_keys
        if keys is not None and username == self.switch.options.username:
            self._conn.set_authorized_keys(asyncssh.import_authorized_keys(keys))
        return True

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn

    async def validate_password(self, username: str, password: str) -> bool:
        options = self.switch.options
        if options.no_reconnect and self.switch.changed_once:
            await asyncio.sleep(3600)  # a cut management path: the login never completes
        if options.latency_ms:
            await asyncio.sleep(options.latency_ms / 1000)
        if options.fail_login:
            return False
        return username == options.username and password == options.password


# slow commands still being carried out after their session was cut (kept: the loop holds tasks weakly)
background: set[asyncio.Future[str]] = set()


async def _hold(switch: SimulatedSwitch, session: Personality, line: str, delay: float) -> str:
    """A slow command: carried out after `delay` even if the client hung up meanwhile, as a switch
    finishes a commit, with the files it named as they were when it started."""
    read = switch.files_read_by(line)
    switch.in_flight.append(line.strip())
    try:
        await asyncio.sleep(delay)
    finally:
        switch.in_flight.remove(line.strip())
    return _carry_out(switch, session, line, read)


def _carry_out(switch: SimulatedSwitch, session: Personality, line: str, read: dict[str, str]) -> str:
    files = switch.__dict__.get("sonic_files", {})
    gone = {path: text for path, text in read.items() if path not in files}
    files.update(gone)  # what a slow command had read before they went
    switch.refresh_counters()
    output = switch.refusal(line)
    if output is None:
        output = session.handle(line)
    for path in gone:
        files.pop(path, None)
    return output


async def _serve_shell(process: asyncssh.SSHServerProcess, switch: SimulatedSwitch) -> None:
    session = PERSONALITIES[switch.platform](switch, process.get_extra_info("username") or "")
    write = process.stdout.write
    write((session.banner() + session.prompt()).replace("\n", "\r\n"))
    pending = ""
    last_was_cr = False
    try:
        while not session.closed:
            data = await process.stdin.read(65536)
            if not data:
                break
            if last_was_cr and data.startswith("\n"):
                data = data[1:]  # the second half of a CR LF split across reads
            last_was_cr = data.endswith("\r")
            # ^D (Junos `load ... terminal`) counts as a line of its own.
            pending += data.replace("\r\n", "\n").replace("\r", "\n").replace("\x04", "\x04\n")
            while "\n" in pending and not session.closed:
                line, pending = pending.split("\n", 1)
                write(line + "\r\n")  # the echo netmiko waits for
                if switch.options.latency_ms:
                    await asyncio.sleep(switch.options.latency_ms / 1000)
                if delay := switch.slow_delay(line):
                    held = _hold(switch, session, line, delay)
                    if switch.options.cut_while_slow:  # the link goes; the switch carries on
                        task = asyncio.ensure_future(held)
                        background.add(task)
                        task.add_done_callback(background.discard)
                        switch.state.record("session-dropped", during=line.strip())
                        raise DropSession
                    output = await held
                else:
                    output = _carry_out(switch, session, line, {})
                switch.drop_after_command(line)
                if (half := switch.cut_output(line, output or "")) is not None:
                    write(half.replace("\n", "\r\n"))
                    await process.stdout.drain()  # the half reaches the client before the cut
                    raise DropSession
                if output:
                    write(output.replace("\n", "\r\n") + "\r\n")
                if not session.closed:
                    write(session.prompt().replace("\n", "\r\n"))
    except DropSession:
        process.channel.get_connection().abort()
        return
    except (asyncssh.BreakReceived, asyncssh.TerminalSizeChanged, BrokenPipeError, ConnectionError):
        pass
    finally:
        session.end()
    process.exit(0)


def _host_key(path: Path | None) -> asyncssh.SSHKey:
    if path is not None and path.is_file():
        return asyncssh.read_private_key(path)
    key = asyncssh.generate_private_key("ssh-ed25519")
    if path is not None:
        key.write_private_key(path)
        path.chmod(0o600)
    return key


class SimulatorFleet:
    """Many simulated switches served from one background event loop."""

    def __init__(self, host_key_file: Path | None = None) -> None:
        """`host_key_file`: reuse that SSH host key (created on first use): known_hosts stays valid."""
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="switchsim", daemon=True)
        self.thread.start()
        self.host_key = _host_key(host_key_file)
        self.switches: list[SimulatedSwitch] = []
        self._servers: list[Any] = []

    def _run(self, coroutine: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        return future.result(timeout=30)

    def start(
        self,
        platform: str,
        hostname: str,
        *,
        port: int = 0,
        options: SimOptions | None = None,
        state_file: Path | None = None,
        ports: list[str] | None = None,
        model: str | None = None,
        os_version: str | None = None,
    ) -> SimulatedSwitch:
        """Serve one switch on 127.0.0.1:`port` (0 picks a free port); returns it with .port set.
        A new switch boots with the factory config of `model` (gpunet_switch_model) and refuses
        statements newer than `os_version` (gpunet_os_version)."""
        if state_file is not None and state_file.exists():
            state = SwitchState.load(state_file)
        else:
            state = SwitchState(platform, hostname, model, os_version, ports=list(ports or []))
        switch = SimulatedSwitch(state, options or SimOptions(), state_file)
        switch.persist()
        self._run(self._listen(switch, port))
        self.switches.append(switch)
        return switch

    async def _listen(self, switch: SimulatedSwitch, port: int) -> None:
        async def shell(process: asyncssh.SSHServerProcess) -> None:
            await _serve_shell(process, switch)

        server = await asyncssh.listen(
            LISTEN_ADDRESS,
            port,
            server_factory=lambda: _Server(switch),
            server_host_keys=[self.host_key],
            process_factory=shell,
            encoding="utf-8",
            line_editor=False,
            login_timeout=30,
            keepalive_interval=0,
        )
        self._servers.append(server)
        switch.port = server.sockets[0].getsockname()[1]

    def call(self, function: Any, *args: Any) -> Any:
        """Run `function(*args)` on the simulator loop (state changes must happen there)."""

        async def wrapper() -> Any:
            return function(*args)

        return self._run(wrapper())

    def known_hosts_line(self, switch: SimulatedSwitch) -> str:
        key = self.host_key.export_public_key("openssh").decode().strip()
        return f"[{LISTEN_ADDRESS}]:{switch.port} {key}"

    def stop(self) -> None:
        async def close_all() -> None:
            for switch in self.switches:
                switch.cancel_confirm_timer()
            for server in self._servers:
                server.close()
            await asyncio.gather(*(s.wait_closed() for s in self._servers), return_exceptions=True)
            # Sessions still open (or logins held by --no-reconnect) end with the simulator.
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        self._run(close_all())
        # Name lookups ran in the loop's default executor: its threads would outlive the simulator
        # until a garbage collection, and a process with another thread running must not fork
        # (gpunet.forked.fork_is_safe).
        self._run(self.loop.shutdown_default_executor())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)

    def __enter__(self) -> SimulatorFleet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
