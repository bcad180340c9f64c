"""`gpunet-validate`: collect with playbooks/verify.yml (or read an existing artifacts folder),
judge against the inventory's design, report. Exit codes: 0 all passed (skips allowed), 4 a check
failed, 3 a check could not run, 2 usage or inventory error, 1 internal error."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from gpunet.gcpause import paused_gc
from gpunet.validate.batches import PARALLEL_FROM_HOSTS, JudgingProcessLost
from gpunet.validate.checks import CHECKS, Catalog, CatalogError, load_catalog, load_selection
from gpunet.validate.judge import judge
from gpunet.validate.manifest import ManifestError, build_manifest, record_collection
from gpunet.validate.pairs import MODES, RING
from gpunet.validate.report import FORMATS, STREAMED, chunks, render
from gpunet.validate.results import EXIT_COULD_NOT_RUN, EXIT_INTERNAL, EXIT_USAGE, Status, exit_code
from gpunet.validate.thresholds import Thresholds

PROMETHEUS = "prometheus"  # text exposition for node_exporter's textfile collector


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpunet-validate",
        description="Prove a deployed GPU fabric: collect ibstat, perftest, nccl-tests and switch "
        "counters, judge them against topology-aware thresholds, report.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("-i", "--inventory", help="inventory to collect from (runs playbooks/verify.yml)")
    source.add_argument(
        "--from-artifacts", metavar="DIR", help="judge an existing artifacts folder; touches nothing"
    )
    parser.add_argument(
        "--limit", help="only these GPU hosts (comma-separated names); with --from-artifacts too"
    )
    parser.add_argument(
        "--checks",
        metavar="FILE|NAMES",
        help="checks catalog YAML (default: the built-in catalog), or check names, comma-separated "
        "(e.g. cabling), run with the built-in catalog's thresholds",
    )
    parser.add_argument(
        "--artifacts", metavar="DIR", help="where to collect (default: artifacts/<fabric>-<time>)"
    )
    parser.add_argument(
        "--pair-mode", choices=MODES, default=RING, help="perftest pair schedule (default: ring)"
    )
    parser.add_argument(
        "--format", choices=(*FORMATS, PROMETHEUS), default="table", help="report format (default: table)"
    )
    parser.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    parser.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="N",
        help=f"judge in N processes (default: one per CPU from {PARALLEL_FROM_HOSTS} GPU hosts on, "
        "else 1); the verdict is the same",
    )
    parser.add_argument("--vault-password-file", help="vault password file for the inventory")
    parser.add_argument("--quiet", action="store_true", help="no live progress while collecting")
    parser.add_argument(
        "--failures-only",
        action="store_true",
        help="table: list every problem and nothing else; prometheus: the problems and counts, "
        "no measured values",
    )
    parser.add_argument("--no-color", action="store_true", help="table: no colour, even on a terminal")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the one place that turns a bug into a one-line message
        print(f"gpunet-validate: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL


def _run(args: argparse.Namespace) -> int:
    if args.output and (problem := _output_problem(Path(args.output))):
        return _usage_error(f"--output {args.output}: {problem}")  # before collecting for minutes
    try:
        catalog = load_selection(args.checks) if args.checks else load_catalog()
    except CatalogError as error:
        return _usage_error(str(error))
    if not catalog.checks:
        print(
            f"gpunet-validate: nothing was checked: the catalog {catalog.path} selects no checks",
            file=sys.stderr,
        )
        return EXIT_COULD_NOT_RUN
    if args.from_artifacts:
        folder = Path(args.from_artifacts)
    else:
        folder = _collect(args, catalog.thresholds(Thresholds()), catalog.checks)
        if folder is None:
            return EXIT_USAGE
    # The collector paused while judging and reporting: at 4,096 hosts the parsed artifacts and
    # results are millions of live objects, none of them garbage, and each automatic collection
    # walked them all (a quarter of the time at 512 hosts).
    with paused_gc():
        return _judge_and_report(args, catalog, folder)


def _judge_and_report(args: argparse.Namespace, catalog: Catalog, folder: Path) -> int:
    try:
        limit = set(args.limit.split(",")) if args.limit else None
        # The numbers the Prometheus file carries; --failures-only leaves them out.
        measure = args.format == PROMETHEUS and not args.failures_only
        verdict = judge(folder, catalog, limit, args.jobs, measure=measure)
    except (ManifestError, CatalogError) as error:
        return _usage_error(str(error))
    except JudgingProcessLost as error:
        print(f"gpunet-validate: {error}", file=sys.stderr)
        return EXIT_COULD_NOT_RUN
    if args.format == PROMETHEUS:
        # Imported where used, as the collection's modules are (_collect): judging an artifacts
        # folder into another format starts without them (0.15 s of imports).
        from gpunet.validate.report.prometheus import prometheus_chunks, render_prometheus, write_textfile

        if args.output:
            # Atomic (temp file + rename): node_exporter's textfile collector may read it at any
            # moment. Written piece by piece, as the JSON and JUnit reports are (below).
            write_textfile(Path(args.output), prometheus_chunks(verdict, args.failures_only))
            print(f"gpunet-validate: wrote prometheus metrics to {args.output}", file=sys.stderr)
            return exit_code(verdict.results)
        report = render_prometheus(verdict, args.failures_only)
    elif args.format not in STREAMED:
        color = not args.no_color and not args.output and sys.stdout.isatty()
        report = render(verdict, args.format, color=color, failures_only=args.failures_only)
    if args.output:
        try:
            if args.format in STREAMED:
                # Hundreds of MiB at 16,384 hosts: written as it is made, never held whole.
                with open(args.output, "wb") as out:
                    out.writelines(chunks(verdict, args.format))
            else:
                Path(args.output).write_text(report)
        except OSError as error:
            return _usage_error(f"--output {args.output}: cannot write ({error.strerror or error})")
        print(f"gpunet-validate: wrote {args.format} report to {args.output}", file=sys.stderr)
    elif args.format in STREAMED:
        sys.stdout.flush()
        sys.stdout.buffer.writelines(chunks(verdict, args.format))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(report)
    if not any(result.status != Status.NOT_CHECKED for result in verdict.results):
        print("gpunet-validate: nothing was checked: no check produced a result", file=sys.stderr)
    return exit_code(verdict.results)


def _collect(args: argparse.Namespace, thresholds: Thresholds, catalog_checks: list[str]) -> Path | None:
    from gpunet.model.check import load_fabric
    from gpunet.model.errors import InventoryInvalidError
    from gpunet.validate.limit import left_out_by_collection, write_left_out
    from gpunet.validate.runner import PLAYBOOK, run_collection

    try:
        fabric = load_fabric(args.inventory, args.vault_password_file)
    except InventoryInvalidError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        print(f"gpunet-validate: {len(error.problems)} problem(s) in {args.inventory}", file=sys.stderr)
        return None
    limit = set(args.limit.split(",")) if args.limit else None
    unknown = sorted((limit or set()) - set(fabric.hosts))
    if unknown:
        _usage_error(f"--limit names hosts that are not GPU hosts of the inventory: {', '.join(unknown)}")
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(args.artifacts or f"artifacts/{fabric.name}-{stamp}")
    # The incast stage runs only where the catalog selects one of its checks (it congests the
    # fabric); its plan is made before anything is written, so a bad catalog leaves no folder.
    incast_plan = None
    if any("incast" in CHECKS[name].categories for name in catalog_checks):
        from gpunet.validate.incast import plan_text

        try:
            incast_plan = plan_text(fabric, thresholds, limit)
        except ValueError as error:
            _usage_error(f"incast stage: {error}")
            return None
    manifest = build_manifest(fabric, thresholds, args.pair_mode, limit)
    manifest.write(folder)
    if incast_plan is not None:
        from gpunet.validate.incast import write_plan

        write_plan(folder, incast_plan)
    if limit:
        # The pairs and runs of the limited hosts whose other end is outside the limit cannot run:
        # each is listed (limit.json) and judged `not checked`, never dropped silently.
        full = build_manifest(fabric, thresholds, args.pair_mode)
        write_left_out(folder, limit, left_out_by_collection(full, manifest, limit))
    # --limit names GPU hosts; the switches' counters are still wanted around their traffic.
    ansible_limit = f"{args.limit},switches" if args.limit else None
    run = run_collection(
        args.inventory, folder, ansible_limit, args.vault_password_file, args.quiet, incast_plan is not None
    )
    record_collection(folder, run.rc)
    if run.failed_before_collecting:
        if not run.no_playbook:  # run_collection said where it looked for the playbook
            where = f"; its output: {run.stdout}" if run.stdout else ""
            print(
                f"gpunet-validate: the collection playbook {PLAYBOOK} failed before collecting anything "
                f"(exit {run.rc}): {run.first_error or 'no error line printed'}{where}",
                file=sys.stderr,
            )
        return None
    if run.rc != 0:
        print(
            f"gpunet-validate: verify playbook exited {run.rc}; judging what was collected", file=sys.stderr
        )
    return folder


def _output_problem(path: Path) -> str | None:
    """Why the report could not be written to `path`, or None."""
    if path.is_dir():
        return "is a folder; give a file name"
    folder = path.parent
    if not folder.is_dir():
        return f"its folder {folder} {'is not a folder' if folder.exists() else 'does not exist'}"
    if not os.access(path if path.exists() else folder, os.W_OK):
        return "is not writable"
    return None


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes, 1 or more, not {text!r}")
    return int(text)


def _usage_error(message: str) -> int:
    print(f"gpunet-validate: {message}", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
