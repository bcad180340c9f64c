"""`gpunet lab up|down|status`: the embedded lab on this machine."""

from __future__ import annotations

import argparse
import json
import sys

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
    actions = lab.add_subparsers(dest="lab_command", required=True)
    actions.add_parser("up", help="start the lab (again: repairs what is missing)").set_defaults(func=run_up)
    actions.add_parser(
        "down", help="remove every container, network, process and file the lab made"
    ).set_defaults(func=run_down)
    show = actions.add_parser("status", help="say what is running (exit 3 unless everything is)")
    show.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    show.set_defaults(func=run_status)


def _say(message: str) -> None:
    print(f"lab: {message}", flush=True)


def run_up(args: argparse.Namespace) -> int:
    try:
        lifecycle.up(LabPaths(), _say)
    except LabError as error:
        print(f"lab up failed: {error}", file=sys.stderr)
        print("what runs stays up for inspection; `gpunet lab down` removes it", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def run_down(args: argparse.Namespace) -> int:
    try:
        lifecycle.down(LabPaths(), _say)
    except LabError as error:
        print(f"lab down failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def run_status(args: argparse.Namespace) -> int:
    try:
        report = lifecycle.status(LabPaths())
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
