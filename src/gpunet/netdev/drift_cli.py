"""`gpunet drift`: per switch, what a push would add and remove to reach intended/. Changes nothing.

Exit: 0 every switch in sync, 4 drift found, 3 a switch could not be read (takes precedence: the
answer is incomplete), 2 usage or inventory error.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from gpunet.model.cli import add_inventory_arguments

    parser = subparsers.add_parser(
        "drift",
        help="show, per switch, what a push would add and remove to reach intended/ (changes nothing)",
        description="Read each switch's running config and report what the push would add and remove "
        "within gpunet's owned scope. Exit 0 in sync, 4 drift, 3 a switch could not be read, 2 usage.",
    )
    add_inventory_arguments(parser)
    parser.add_argument(
        "--limit", help="switch names, roles or globs, comma-separated (like ansible --limit)"
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--intended-dir",
        type=Path,
        help="default: <project>/intended/<fabric name>, found from the inventory as gpunet render does",
    )
    parser.add_argument("--known-hosts", type=Path, default=Path("~/.ssh/known_hosts"))
    parser.add_argument("--timeout", type=float, default=15.0, help="SSH connect/login timeout (s)")
    parser.add_argument("--forks", type=int, default=8, help="switches read in parallel")
    parser.set_defaults(func=run)


def selected(names_roles: dict[str, str], limit: str | None) -> list[str]:
    if not limit:
        return sorted(names_roles)
    patterns = [p.strip() for p in limit.split(",") if p.strip()]
    return sorted(
        name
        for name, role in names_roles.items()
        if any(fnmatch.fnmatchcase(name, p) or p == role for p in patterns)
    )


def run(args: argparse.Namespace) -> int:
    from gpunet.model.check import checked_fabric
    from gpunet.netdev.drift import fabric_drift
    from gpunet.netdev.logins import connection_from_vars, inventory_logins
    from gpunet.netdev.strategies import PushOptions
    from gpunet.project import intended_root

    def usage(message: str) -> int:
        print(f"gpunet drift: {message}", file=sys.stderr)
        return EXIT_USAGE

    fabric = checked_fabric("gpunet drift", args.inventory, args.vault_password_file, "nothing read")
    if fabric is None:
        return EXIT_USAGE
    names = selected({n: s.role for n, s in fabric.switches.items()}, args.limit)
    if not names:
        return usage(f"--limit {args.limit!r} matches no switch of fabric {fabric.name}")
    folder = args.intended_dir or intended_root(args.inventory) / fabric.name
    missing = [n for n in names if not (folder / f"{n}.cfg").is_file()]
    if missing:
        return usage(f"no reviewed config for {', '.join(missing)} in {folder} (run `gpunet render`)")
    known_hosts = args.known_hosts.expanduser()
    try:
        logins = inventory_logins(Path(args.inventory), args.vault_password_file, names)
    except ValueError as error:
        return usage(str(error))
    targets = []
    for name in names:
        try:
            connection = connection_from_vars(logins[name], known_hosts=known_hosts, timeout_s=args.timeout)
        except ValueError as error:
            return usage(f"{name}.{error}")
        targets.append((fabric.switches[name], (folder / f"{name}.cfg").read_text(), connection))
    report = fabric_drift(targets, PushOptions(command_timeout_s=60.0), workers=args.forks)
    if args.format == "json":
        json.dump(report.as_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for drift in report.switches:
            print(describe(drift))
        print(summary(report))
    return report.exit_code


def first_line(error: str) -> str:
    """An error's first line: netmiko appends a six-line list of common causes to every connection
    failure, which repeated per switch buries the answer (`--format json` keeps the whole text)."""
    return next((line.strip() for line in error.splitlines() if line.strip()), "")


def summary(report) -> str:  # type: ignore[no-untyped-def]
    from gpunet.netdev.drift import DRIFT, IN_SYNC, UNREADABLE

    counts = Counter(drift.status for drift in report.switches)
    parts = ", ".join(f"{counts[status]} {status}" for status in (IN_SYNC, DRIFT, UNREADABLE))
    return f"{len(report.switches)} switch(es): {parts}"


def describe(drift) -> str:  # type: ignore[no-untyped-def]
    head = f"{drift.switch} ({drift.platform}): {drift.status}"
    if drift.error:
        return f"{head}: {first_line(drift.error)}"
    if drift.remediation is None or drift.remediation.in_sync:
        return head
    r = drift.remediation
    lines = [f"{head}: {len(r.added)} to add, {len(r.removed)} to remove"]
    lines += [f"  - {line}" for line in r.removed] + [f"  + {line}" for line in r.added]
    lines += ["  the push would send:"] + [f"    {line}" for line in r.commands]
    return "\n".join(lines)
