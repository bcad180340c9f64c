"""`gpunet cabling -i INVENTORY --from-artifacts DIR`: the inventory's cabling judged from LLDP
neighbour captures in an artifacts folder. Read-only: nothing is collected or touched.

Files read (the artifacts layout of docs/validation.md):
    hosts/<host>/lldpctl-json.txt                   lldpd's `lldpctl -f json`
    switches/<switch>/<phase>/<tool>.txt            phase: before (default) or after
where <tool> is the first found of the switch OS's LLDP captures (checks/cabling.py LLDP_TOOLS:
EOS, NX-OS, Junos their own JSON, SONiC lldpctl-json or `show lldp table`, Cumulus lldpctl-json).
A device whose folder holds `collection-error.txt` is named unreachable with its first line.

Exit codes, as gpunet-validate's: 0 cabled as planned; 4 a finding; 3 otherwise, a capture missing
or unreadable, a link with neither end captured, or no link to check; 2 usage or inventory error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from gpunet.model.cli import add_inventory_arguments
from gpunet.validate.cabling import Verdict, judge_cabling
from gpunet.validate.capture_file import read_bytes
from gpunet.validate.checks.cabling import HOST_TOOL, switch_tools
from gpunet.validate.parsers import ParseError, parse

EXIT_OK, EXIT_USAGE, EXIT_NOT_JUDGED, EXIT_FINDINGS = 0, 2, 3, 4
FILE = f"{HOST_TOOL}.txt"
PHASES = ("before", "after")


@dataclass
class Capture:
    device: str
    kind: str  # host or switch
    file: str  # relative to the artifacts folder
    status: str  # read, missing, unreachable, unreadable
    reason: str = ""
    parsed: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, str]:
        return {
            "device": self.device,
            "kind": self.kind,
            "file": self.file,
            "status": self.status,
            "reason": self.reason,
        }


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    command = subparsers.add_parser(
        "cabling",
        help="judge the inventory's cabling from LLDP captures (lldpctl -f json) in an artifacts folder",
    )
    add_inventory_arguments(command)
    command.add_argument(
        "--from-artifacts",
        required=True,
        metavar="DIR",
        help=f"artifacts folder holding hosts/<host>/{FILE} and switches/<switch>/<phase>/<LLDP capture>.txt",
    )
    command.add_argument(
        "--phase", choices=PHASES, default="before", help="which switch captures (default before)"
    )
    command.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    command.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gpunet.model.check import checked_fabric

    folder = args.from_artifacts
    if not os.path.isdir(folder):
        print(
            f"gpunet cabling: {folder}: is not a folder (give --from-artifacts an artifacts folder)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    fabric = checked_fabric("gpunet cabling", args.inventory, args.vault_password_file, "nothing judged")
    if fabric is None:
        return EXIT_USAGE
    captures = [
        *(read_capture(folder, host, "host", f"hosts/{host}") for host in fabric.hosts),
        *(
            read_capture(
                folder, name, "switch", f"switches/{name}/{args.phase}", switch_tools(switch.platform)
            )
            for name, switch in fabric.switches.items()
        ),
    ]
    verdict = judge_cabling(fabric, {capture.device: capture.parsed for capture in captures})
    code = exit_code(verdict, captures)
    if args.format == "json":
        document = {"fabric": fabric.name, "exit_code": code, **verdict.as_dict()}
        document["captures"] = [capture.as_dict() for capture in captures]
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_text(fabric.name, verdict, captures)
    return code


def read_capture(
    folder: str, device: str, kind: str, relative_folder: str, tools: tuple[str, ...] = (HOST_TOOL,)
) -> Capture:
    """The first of `tools` whose file is there (else the first, named missing)."""
    tool = next(
        (t for t in tools if os.path.lexists(os.path.join(folder, relative_folder, f"{t}.txt"))), tools[0]
    )
    relative = f"{relative_folder}/{tool}.txt"
    error_file = os.path.join(folder, relative_folder, "collection-error.txt")
    if os.path.isfile(error_file):
        reason = _first_line(_read_text(error_file)) or "collection-error.txt is empty"
        return Capture(device, kind, relative, "unreachable", reason)
    path = os.path.join(folder, relative)
    if not os.path.lexists(path):
        return Capture(device, kind, relative, "missing", "not collected")
    try:
        text = _read_text(path)
    except OSError as error:
        return Capture(device, kind, relative, "unreadable", error.strerror or str(error))
    try:
        return Capture(device, kind, relative, "read", parsed=parse(tool, text))
    except ParseError as error:
        return Capture(device, kind, relative, "unreadable", str(error))


def _read_text(path: str) -> str:
    return read_bytes(path).decode(errors="replace")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def exit_code(verdict: Verdict, captures: list[Capture]) -> int:
    if verdict.findings:
        return EXIT_FINDINGS
    if verdict.not_checked or not verdict.links or any(capture.status != "read" for capture in captures):
        return EXIT_NOT_JUDGED
    return EXIT_OK


def print_text(fabric: str, verdict: Verdict, captures: list[Capture]) -> None:
    for finding in verdict.findings:
        print(f"FAIL {finding.kind}: {finding.message}")
        print(f"     fix: {finding.fix}")
        if finding.seen_from != "both ends":
            print(f"     seen from: {finding.seen_from}")
    for capture in captures:
        if capture.status != "read":
            print(f"ERROR {capture.kind} {capture.device}: {capture.file} {capture.status}: {capture.reason}")
    for link, reason in verdict.not_checked:
        print(f"NOT CHECKED {link}: {reason}")
    for link, reason in verdict.one_end:
        print(f"NOTE {link}: as planned, {reason}")
    read = sum(capture.status == "read" for capture in captures)
    summary = (
        f"fabric {fabric}: {len(verdict.links)} planned link(s), {verdict.as_planned} as planned "
        f"({len(verdict.one_end)} judged from one end), {len(verdict.findings)} finding(s), "
        f"{len(verdict.not_checked)} not checked; {read} of {len(captures)} capture(s) read"
    )
    if not verdict.links:
        summary += "; nothing was checked (the inventory plans no link)"
    print(summary)
