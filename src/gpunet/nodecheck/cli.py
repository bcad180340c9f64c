"""`gpunet node-check` (on a GPU host) and `gpunet node-expectations` (on the controller).

node-check exit codes: 0 healthy (skips allowed), 4 a check failed, 3 a check could not run,
2 unusable expectations file or arguments, 1 internal error. It prints one line either way.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from gpunet.nodecheck.collect import DEFAULT_TIMEOUT_S, collect_host
from gpunet.nodecheck.expectations import (
    DEFAULT_PATH,
    ExpectationsError,
    expectations_json,
    node_expectations,
    read_expectations,
)
from gpunet.nodecheck.judge import NODE_CHECKS, first_problem, judge_node, summary_line
from gpunet.validate.results import EXIT_INTERNAL, EXIT_USAGE, exit_code

DESCRIPTION = "Run gpunet's host checks on this host; print one line; exit 0 healthy."


def register(subparsers: argparse._SubParsersAction) -> None:
    check = subparsers.add_parser(
        "node-check",
        help="judge this GPU host against its installed expectations (Slurm HealthCheckProgram)",
        description=DESCRIPTION,
    )
    add_node_check_arguments(check)

    write = subparsers.add_parser(
        "node-expectations", help="print one GPU host's expectations file, derived from the inventory"
    )
    write.add_argument("-i", "--inventory", required=True, help="inventory folder or file")
    write.add_argument("--host", required=True, help="GPU host name")
    write.add_argument("--vault-password-file", help="vault password file for the inventory")
    write.set_defaults(func=run_node_expectations)

    bundle = subparsers.add_parser(
        "node-check-bundle",
        help="write node-check as one self-contained zipapp for GPU hosts (Python 3.11+, no index)",
    )
    bundle.add_argument("-o", "--output", required=True, help="the .pyz file to write")
    bundle.set_defaults(func=_run_node_check_bundle)


def _run_node_check_bundle(args: argparse.Namespace) -> int:
    from gpunet.nodecheck.bundle import write_bundle  # controller only: reads installed packages

    return write_bundle(Path(args.output))


def main(argv: list[str] | None = None) -> int:
    """`gpunet-node-check` / `python3 -m gpunet.nodecheck`: the same command without the other
    subcommands' imports (jsonschema, Ansible), so a node needs only PyYAML, prometheus_client and rich."""
    parser = argparse.ArgumentParser(prog="gpunet-node-check", description=DESCRIPTION)
    add_node_check_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_node_check(args)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # the one place that turns a bug into a one-line message
        print(f"gpunet node-check: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL


def add_node_check_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--expectations", type=Path, default=DEFAULT_PATH, help=f"expectations file (default: {DEFAULT_PATH})"
    )
    check.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per command (default: %(default)s)"
    )
    check.add_argument(
        "--checks",
        default=",".join(NODE_CHECKS),
        help=f"comma-separated checks (default, the host checks that drain a node: {', '.join(NODE_CHECKS)})",
    )
    check.add_argument("--format", choices=("line", "prometheus"), default="line", help="stdout format")
    check.add_argument(
        "--textfile", type=Path, help="also write Prometheus metrics here (atomically, for node_exporter)"
    )
    check.add_argument(
        "--slurm", action="store_true", help="drain this node on failure, resume it when gpunet drained it"
    )
    check.add_argument("--slurm-node", help="Slurm node name (default: the expectations' host name)")
    check.add_argument("--scontrol", default="scontrol", help="scontrol binary (default: from PATH)")
    check.add_argument(
        "--keep-artifacts", type=Path, help="collect into this folder and keep it (default: a temp folder)"
    )
    check.set_defaults(func=run_node_check)


def run_node_check(args: argparse.Namespace) -> int:
    from gpunet.nodecheck.slurm import SlurmError, apply, decide, node_state
    from gpunet.validate.checks import CHECKS

    checks = tuple(name.strip() for name in args.checks.split(",") if name.strip())
    unknown = [name for name in checks if name not in CHECKS]
    if unknown:
        return _usage(f"--checks: unknown {', '.join(unknown)} (host checks: {', '.join(NODE_CHECKS)})")
    try:
        manifest = read_expectations(args.expectations)
    except ExpectationsError as error:
        return _usage(str(error))
    host = next(iter(manifest.hosts.values()))
    with tempfile.TemporaryDirectory(prefix="gpunet-node-check-") as scratch:
        folder = args.keep_artifacts or Path(scratch)
        manifest.write(folder)
        collect_host(host, folder, args.timeout)
        metrics_wanted = bool(args.textfile) or args.format == "prometheus"
        results, measurements = judge_node(folder, manifest, checks, measure=metrics_wanted)
        line = summary_line(results)
        if metrics_wanted:
            from gpunet.validate.report.prometheus import NODE_CHECK, exposition, write_textfile

            text = exposition(results, manifest, measurements, source=NODE_CHECK)
            if args.textfile:
                write_textfile(args.textfile, text)
            if args.format == "prometheus":
                sys.stdout.write(text)
    if args.format == "line":
        print(line)
    code = exit_code(results)
    if args.slurm:
        node = args.slurm_node or host.name
        try:
            action = decide(node_state(node, args.scontrol), first_problem(results) is None, line)
            apply(node, action, line, args.scontrol)
        except SlurmError as error:
            print(f"gpunet node-check: slurm: {error}", file=sys.stderr)
            return code or 3
    return code


def run_node_expectations(args: argparse.Namespace) -> int:
    from gpunet.model.check import load_fabric
    from gpunet.model.errors import InventoryInvalidError

    try:
        fabric = load_fabric(args.inventory, args.vault_password_file)
        sys.stdout.write(expectations_json(node_expectations(fabric, args.host)))
    except InventoryInvalidError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return _usage(f"{len(error.problems)} problem(s) in {args.inventory}")
    except ExpectationsError as error:
        return _usage(str(error))
    return 0


def _usage(message: str) -> int:
    print(f"gpunet node-check: {message}", file=sys.stderr)
    return EXIT_USAGE
