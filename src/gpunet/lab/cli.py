"""`gpunet lab up|down|status`: the embedded lab on this machine."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path

from gpunet.extras import EXIT_MISSING_EXTRA, require_extra
from gpunet.lab import lifecycle
from gpunet.lab.errors import LabError
from gpunet.lab.paths import LabPaths

EXIT_OK = 0
EXIT_FAILED = 2
EXIT_NOT_RUNNING = 3  # `status` when the lab is down or degraded


def register(subparsers: argparse._SubParsersAction) -> None:
    lab = subparsers.add_parser(
        "lab", help="the embedded lab: GPU-host containers, NTP server and simulated switches"
    )
    lab.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="folder holding inventories/lab (state goes to .lab/ there); default: the current folder",
    )
    actions = lab.add_subparsers(dest="lab_command", required=True)
    actions.add_parser("up", help="start the lab (again: repairs what is missing)").set_defaults(func=run_up)
    actions.add_parser(
        "down", help="remove every container, network, process and file the lab made"
    ).set_defaults(func=run_down)
    fault = actions.add_parser(
        "fault",
        help="restart one simulated switch with a fault on purpose (no option: healthy again)",
        description="Restart a lab switch simulator with switchsim fault options, e.g. "
        "`gpunet lab fault leaf02 --reject 'ecn' --factory-reset`: the next deploy pushes "
        "again and leaf02 rejects matching lines with its OS's error.",
    )
    fault.add_argument("switch", help="lab switch name, e.g. leaf02")
    fault.add_argument("--reject", metavar="REGEX", help="configuration lines matching REGEX are rejected")
    fault.add_argument(
        "--drop-after", type=int, metavar="N", help="drop the SSH session after N config lines"
    )
    fault.add_argument("--fail-login", action="store_true", help="refuse every login")
    fault.add_argument(
        "--lldp-swap", metavar="PORT_A,PORT_B", help="LLDP shows the two ports' cables swapped"
    )
    fault.add_argument(
        "--lldp-neighbour",
        action="append",
        default=[],
        metavar="PORT=DEVICE:PORT",
        help="LLDP shows PORT cabled to DEVICE:PORT (PORT= : to nothing); repeatable",
    )
    fault.add_argument(
        "--factory-reset",
        action="store_true",
        help="forget the switch's configuration (the next push is full)",
    )
    fault.set_defaults(func=run_fault)
    show = actions.add_parser("status", help="say what is running (exit 3 unless everything is)")
    show.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    show.set_defaults(func=run_status)


def _needs_lab_extra(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    @wraps(run)
    def checked(args: argparse.Namespace) -> int:
        if not require_extra("lab", "gpunet lab"):
            return EXIT_MISSING_EXTRA
        return run(args)

    return checked


def _paths(args: argparse.Namespace) -> LabPaths:
    return LabPaths(root=args.dir.resolve()) if args.dir is not None else LabPaths()


def _say(message: str) -> None:
    print(f"lab: {message}", flush=True)


@_needs_lab_extra
def run_up(args: argparse.Namespace) -> int:
    try:
        lifecycle.up(_paths(args), _say)
    except LabError as error:
        print(f"lab up failed: {error}", file=sys.stderr)
        print("what runs stays up for inspection; `gpunet lab down` removes it", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


@_needs_lab_extra
def run_down(args: argparse.Namespace) -> int:
    try:
        lifecycle.down(_paths(args), _say)
    except LabError as error:
        print(f"lab down failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


@_needs_lab_extra
def run_fault(args: argparse.Namespace) -> int:
    faults: list[str] = []
    if args.reject:
        faults += ["--reject", args.reject]
    if args.drop_after is not None:
        faults += ["--drop-after", str(args.drop_after)]
    if args.fail_login:
        faults.append("--fail-login")
    if args.lldp_swap:
        faults += ["--lldp-swap", args.lldp_swap]
    for rewire in args.lldp_neighbour:
        faults.append(f"--lldp-neighbour={rewire}")  # "=": a value may start with "-"
    try:
        lifecycle.set_switch_faults(_paths(args), args.switch, faults, args.factory_reset, _say)
    except LabError as error:
        print(f"lab fault failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


@_needs_lab_extra
def run_status(args: argparse.Namespace) -> int:
    try:
        report = lifecycle.status(_paths(args))
    except LabError as error:
        print(f"lab status failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    if args.format == "json":
        payload = {"state": report.state, "components": [c.__dict__ for c in report.components]}
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"lab is {report.state}")
        for c in report.components:
            print(f"  {'ok ' if c.running else '-- '} {c.kind:9} {c.name:10} {c.detail}")
    return EXIT_OK if report.state == "up" else EXIT_NOT_RUNNING
