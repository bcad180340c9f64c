"""`gpunet render`: write each switch's intended configuration, or check that it is up to date."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpunet.gcpause import paused_gc
from gpunet.model.build import RawInventory
from gpunet.model.errors import InventoryInvalidError
from gpunet.model.loader import load_inventory
from gpunet.project import intended_root
from gpunet.render.intended import WriteReport
from gpunet.render.manifest import MANIFEST_NAME, RenderFolderError
from gpunet.render.pipeline import RenderOutcome, render_inventory

# 1 is gpunet's own bug (gpunet.cli) and 2 bad input or usage: stale needs a code of its own.
EXIT_OK = 0
EXIT_INVALID = 2
EXIT_STALE = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    from gpunet.model.cli import add_inventory_arguments

    render = subparsers.add_parser(
        "render",
        help="render every switch's RoCE QoS config to intended/<fabric>/",
        description="Render each switch's configuration (<switch>.cfg, exactly what the push sends) and "
        "summary (<switch>.md). Only files whose content changed are written; files gpunet did not write "
        f"(see {MANIFEST_NAME} in the folder) are never removed. Exit codes: 0 done or up to date, "
        f"2 invalid inventory or unusable folder, {EXIT_STALE} --check found stale files, 1 internal error.",
    )
    add_inventory_arguments(render)
    render.add_argument(
        "--out",
        type=Path,
        help="output folder (default: <project>/intended/<fabric name>, the project being the folder "
        "that holds the inventory's inventories/ folder, else the folder that holds the inventory)",
    )
    render.add_argument(
        "--check",
        action="store_true",
        help=f"write nothing; exit {EXIT_STALE} when any intended file is missing, differs or is left over",
    )
    render.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that holds files gpunet did not write and has no manifest "
        "(those files are still left alone)",
    )
    render.add_argument("--diff", action="store_true", help="also print a unified diff of every change")
    render.add_argument(
        "--quiet",
        action="store_true",
        help="print the summary line (and files kept or left alone) instead of a line per file",
    )
    render.set_defaults(func=run_render)


def run_render(args: argparse.Namespace) -> int:
    try:
        # Passed straight in, unnamed, so that render_inventory can free it once the model is built.
        outcome = render_inventory(
            _loaded(args),
            lambda fabric_name: args.out or intended_root(args.inventory) / fabric_name,
            check=args.check,
            force=args.force,
            with_diffs=args.diff,
        )
    except InventoryInvalidError as error:
        outcome = RenderOutcome(report=None, problems=error.problems)
    except RenderFolderError as error:
        print(f"gpunet render: {error}", file=sys.stderr)
        return EXIT_INVALID
    report = outcome.report
    if report is None:
        for problem in outcome.problems:
            print(problem, file=sys.stderr)
        print(f"{len(outcome.problems)} problem(s) in {args.inventory}; nothing rendered", file=sys.stderr)
        return EXIT_INVALID
    _print_report(report, check=args.check, with_diff=args.diff, quiet=args.quiet)
    if args.check and not report.up_to_date:
        return EXIT_STALE
    return EXIT_OK


def _loaded(args: argparse.Namespace) -> RawInventory:
    with paused_gc():
        return load_inventory(args.inventory, args.vault_password_file)


def _print_report(report: WriteReport, *, check: bool, with_diff: bool, quiet: bool = False) -> None:
    verbs = ("missing", "changed", "left over") if check else ("created", "updated", "removed")
    for verb, names in zip(verbs, (report.missing, report.changed, report.extra), strict=True):
        for name in names if not quiet else ():
            print(f"{verb}: {report.out_dir / name}")
            if with_diff:
                sys.stdout.write(report.diffs[name])
    for name in report.edited:
        print(f"kept (edited since gpunet wrote it; delete it yourself): {report.out_dir / name}")
    if report.foreign:
        print(f"left alone, not written by gpunet: {', '.join(report.foreign)}")
    if check and not report.manifest_current:
        print(f"note: {report.out_dir / MANIFEST_NAME} is missing or out of date; a render writes it")
    total = len(report.missing) + len(report.changed) + len(report.extra)
    if check:
        total += len(report.edited)
        state = "up to date" if report.up_to_date else f"{total} file(s) out of date: run gpunet render"
        print(f"{report.out_dir}: {state}")
    else:
        print(f"{report.out_dir}: {total} file(s) written or removed, {len(report.unchanged)} unchanged")
