"""`gpunet switchsim`: serve simulated switches over SSH on 127.0.0.1 (lab and test equipment)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from gpunet.extras import EXIT_MISSING_EXTRA, require_extra
from gpunet.platforms import known_platforms

EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "switchsim",
        help="serve simulated switches over SSH on 127.0.0.1 (lab equipment, not a switch OS)",
        description=(
            "Serve a simulated switch OS over real SSH on 127.0.0.1. LAB EQUIPMENT: it imitates what "
            "gpunet touches (prompts, config modes, commit models, PFC show commands), nothing more."
        ),
    )
    parser.add_argument("--platform", required=True, choices=known_platforms())
    parser.add_argument("--port", type=int, required=True, help="first TCP port on 127.0.0.1")
    parser.add_argument("--count", type=int, default=1, help="serve this many switches on consecutive ports")
    parser.add_argument("--hostname", help="switch hostname (default: from --state, else 'switch')")
    parser.add_argument("--model", help="switch model (gpunet_switch_model): boot its factory config")
    parser.add_argument("--os-version", help="OS release (gpunet_os_version): refuse newer statements")
    parser.add_argument("--state", type=Path, help="JSON state file, loaded if present, saved on change")
    parser.add_argument("--host-key", type=Path, help="SSH host key file to reuse (created if missing)")
    parser.add_argument("--username", default="admin")
    parser.add_argument("--password", default="admin")
    parser.add_argument("--reject", metavar="REGEX", help="config lines matching REGEX get the OS's error")
    parser.add_argument(
        "--refuse", metavar="REGEX", help="commands matching REGEX (a confirm, a save) get the OS's refusal"
    )
    parser.add_argument("--drop-after", type=int, metavar="N", help="drop the session after N config lines")
    parser.add_argument(
        "--drop-at", metavar="REGEX", help="drop the session once a command matching REGEX was carried out"
    )
    parser.add_argument("--latency-ms", type=int, default=0, help="delay before every reply")
    parser.add_argument(
        "--slow-at", metavar="REGEX", help="hold the first matching command --slow-s, then carry it out"
    )
    parser.add_argument("--slow-s", type=float, default=0.0, help="how long --slow-at holds its command")
    parser.add_argument(
        "--cut-while-slow", action="store_true", help="cut the session as the --slow-at command starts"
    )
    parser.add_argument(
        "--cut-output-at", metavar="REGEX", help="cut the session half-way through a matching output"
    )
    parser.add_argument(
        "--lldp-swap", metavar="PORT_A,PORT_B", help="LLDP shows the two ports' neighbours exchanged (a swap)"
    )
    parser.add_argument(
        "--lldp-neighbour",
        action="append",
        default=[],
        metavar="PORT=DEVICE:PORT",
        help="LLDP shows PORT cabled to DEVICE:PORT instead (PORT= : to nothing); repeatable",
    )
    parser.add_argument(
        "--lldp-wires",
        type=Path,
        metavar="FILE",
        help="JSON {host: {netdev: device}}: send real LLDP frames out of each device for the port "
        "cabled to that host NIC (the lab's veths; needs CAP_NET_RAW)",
    )
    parser.add_argument(
        "--traffic-dir",
        type=Path,
        metavar="FOLDER",
        help="serve the lab's simulated incast requests in FOLDER whose receiver is cabled to this "
        "switch (gpunet.lab.traffic_folder; a SIMULATION)",
    )
    parser.add_argument("--fail-login", action="store_true", help="refuse every login")
    parser.add_argument(
        "--no-reconnect", action="store_true", help="after a config change, new logins hang (cut management)"
    )
    parser.add_argument(
        "--minute-seconds", type=float, default=60.0, help="length of a Junos commit-confirmed minute"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not require_extra("lab", "gpunet switchsim"):
        return EXIT_MISSING_EXTRA
    from gpunet.lab.switchsim.server import SimulatorFleet
    from gpunet.lab.switchsim.switch import SimOptions

    if args.count < 1 or not 0 < args.port < 65536 - args.count:
        print("gpunet switchsim: --port/--count out of range", file=sys.stderr)
        return EXIT_USAGE
    if args.lldp_swap is not None and len([p for p in args.lldp_swap.split(",") if p]) != 2:
        print(f"gpunet switchsim: --lldp-swap {args.lldp_swap}: expected PORT_A,PORT_B", file=sys.stderr)
        return EXIT_USAGE
    bad = [item for item in args.lldp_neighbour if "=" not in item or item.startswith("=")]
    bad += [
        item for item in args.lldp_neighbour if item.partition("=")[2] and ":" not in item.partition("=")[2]
    ]
    if bad:
        print(
            f"gpunet switchsim: --lldp-neighbour {bad[0]}: expected PORT=DEVICE:PORT or PORT=",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.traffic_dir is not None and args.count > 1:
        print("gpunet switchsim: --traffic-dir takes one switch (--count 1)", file=sys.stderr)
        return EXIT_USAGE
    if args.state is not None and args.count > 1:
        print("gpunet switchsim: --state takes one switch (--count 1)", file=sys.stderr)
        return EXIT_USAGE
    wires = None
    if args.lldp_wires is not None:
        from gpunet.lab.switchsim.lldp_wire import read_wires

        if args.count > 1:
            print("gpunet switchsim: --lldp-wires takes one switch (--count 1)", file=sys.stderr)
            return EXIT_USAGE
        try:
            wires = read_wires(args.lldp_wires)
        except (OSError, ValueError) as error:
            print(f"gpunet switchsim: --lldp-wires: {error}", file=sys.stderr)
            return EXIT_USAGE
    options = SimOptions(
        username=args.username,
        password=args.password,
        reject=args.reject,
        refuse=args.refuse,
        drop_after=args.drop_after,
        drop_at=args.drop_at,
        latency_ms=args.latency_ms,
        slow_at=args.slow_at,
        slow_s=args.slow_s,
        cut_while_slow=args.cut_while_slow,
        cut_output_at=args.cut_output_at,
        lldp_swap=args.lldp_swap,
        lldp_neighbour=list(args.lldp_neighbour),
        fail_login=args.fail_login,
        no_reconnect=args.no_reconnect,
        minute_seconds=args.minute_seconds,
    )
    default_name = args.state.name.split(".")[0] if args.state is not None else "switch"
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    fleet = SimulatorFleet(args.host_key)
    try:
        for index in range(args.count):
            name = args.hostname or default_name
            switch = fleet.start(
                args.platform,
                name if args.count == 1 else f"{name}{index + 1:03d}",
                port=args.port + index,
                options=options,
                state_file=args.state,
                model=args.model,
                os_version=args.os_version,
            )
            print(f"switchsim: {args.platform} {switch.state.hostname} 127.0.0.1:{switch.port}", flush=True)
            if wires is not None:
                from gpunet.lab.switchsim.lldp_wire import LldpWire

                LldpWire(switch, wires, lambda line: print(line, flush=True)).start(stop)
            if args.traffic_dir is not None:
                threading.Thread(
                    target=serve_traffic, args=(fleet, switch, args.traffic_dir, stop), daemon=True
                ).start()
        stop.wait()
    except OSError as error:
        print(f"gpunet switchsim: cannot listen on 127.0.0.1:{args.port}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    finally:
        fleet.stop()
    return 0


TRAFFIC_POLL_S = 0.2


def serve_traffic(fleet: Any, switch: Any, folder: Path, stop: threading.Event) -> None:
    """Poll the lab's traffic folder for this switch's incast requests (SIMULATION) until `stop`;
    the load is applied on the simulator loop, where the switch's state changes."""
    from gpunet.lab.traffic_folder import serve

    def once() -> list[str]:
        said = serve(folder, switch.state.hostname, switch.state)
        if said:
            switch.persist()
        return said

    while not stop.wait(TRAFFIC_POLL_S):
        try:
            said = fleet.call(once)
        except Exception as error:  # a bad request must not stop the switch
            said = [f"traffic: {type(error).__name__}: {error}"]
        for line in said:
            print(f"traffic: {line}", flush=True)
