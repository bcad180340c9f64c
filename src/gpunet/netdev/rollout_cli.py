"""`gpunet rollout-plan`: the canary wave of a QoS rollout and each canary's rollback, written to a
folder before anything is pushed (playbooks/switches.yml -e gpunet_rollout=canary runs it).

Writes <out>/plan.json and <out>/previous/<fabric>/<switch>.cfg (the rollback intents, laid out as
intended/ is, so the push reads them unchanged). Exit 0 planned, 2 usage, inventory or Git problem
(nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

EXIT_OK, EXIT_USAGE = 0, 2


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from gpunet.model.cli import add_inventory_arguments

    parser = subparsers.add_parser(
        "rollout-plan",
        help="plan a canary QoS rollout: the canary leaves, the hosts behind them, each canary's rollback",
        description="Choose the canary leaves (one per rail, or --canary), the GPU hosts behind them, "
        "and each canary's previous intent from Git; write them to --out. Pushes nothing.",
    )
    add_inventory_arguments(parser)
    parser.add_argument("--canary", default="", help="canary leaves, comma-separated (default: one per rail)")
    parser.add_argument(
        "--intended-dir",
        type=Path,
        help="default: <project>/intended/<fabric name>, found from the inventory as gpunet render does",
    )
    parser.add_argument(
        "--out", type=Path, help="default: <project>/rollouts/<fabric>-<UTC time>, beside intended/"
    )
    parser.set_defaults(func=run)

    gate = subparsers.add_parser(
        "rollout-gate",
        help="the canary gate: gpunet-validate on the hosts behind the canaries, before or after the push",
        description="Judge the hosts behind a planned wave's canaries (gpunet-validate, the gate's checks) "
        "into the rollout folder. --phase before keeps a baseline; --phase after passes (exit 0) where "
        "gpunet-validate passed, or with a baseline where nothing became a fail or error that was not "
        "one before, else exit 4; 2 where nothing could be judged.",
    )
    gate.add_argument("--plan", type=Path, required=True, help="the plan.json gpunet rollout-plan wrote")
    gate.add_argument("--phase", choices=("before", "after"), required=True)
    source = gate.add_mutually_exclusive_group(required=True)
    source.add_argument("-i", "--inventory", help="collect from this inventory (runs playbooks/verify.yml)")
    source.add_argument("--from-artifacts", type=Path, help="judge this artifacts folder instead")
    gate.add_argument("--hosts", default="", help="GPU hosts to judge, comma-separated (default: the plan's)")
    gate.add_argument(
        "--checks", default="", help="check names or a catalog file (default: the gate's checks)"
    )
    gate.set_defaults(func=run_gate)

    previous = subparsers.add_parser(
        "rollout-previous",
        help="a failed canary's rollback: the committed version it ran before the push",
        description="After a failed gate: find, among the committed versions of the canary's "
        "intended config, the newest that its pre-push running config (the push's backup) matches "
        "within gpunet's scope, and make it the rollback intent in the plan's folder. Where it ran "
        "none (drift), the plan's choice stays and the output says so. Exit 0, 2 usage.",
    )
    add_inventory_arguments(previous)
    previous.add_argument("--plan", type=Path, required=True, help="the plan.json gpunet rollout-plan wrote")
    previous.add_argument("--switch", required=True, help="the canary")
    previous.add_argument(
        "--running", type=Path, required=True, help="its running config before the push (the backup)"
    )
    previous.set_defaults(func=run_previous)


def run_gate(args: argparse.Namespace) -> int:
    from gpunet.netdev.rollout_gate import GATE_CHECKS, Source, run_phase
    from gpunet.validate.regressions import ReportError

    try:
        plan = json.loads(args.plan.read_text())
        out, planned = Path(plan["out"]), list(plan["hosts"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(
            f"gpunet rollout-gate: {args.plan}: not a plan of gpunet rollout-plan ({error})", file=sys.stderr
        )
        return EXIT_USAGE
    hosts = [h.strip() for h in args.hosts.split(",") if h.strip()] or planned
    source = Source(inventory=args.inventory or "", artifacts=args.from_artifacts)
    try:
        result = run_phase(args.phase, out, source, hosts, args.checks or ",".join(GATE_CHECKS))
    except ReportError as error:
        print(f"gpunet rollout-gate: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(result.message)
    return result.exit_code


def run(args: argparse.Namespace) -> int:
    from gpunet.model.check import checked_fabric
    from gpunet.netdev.rollout import RolloutError, plan_canary
    from gpunet.project import project_root

    def usage(message: str) -> int:
        print(f"gpunet rollout-plan: {message}", file=sys.stderr)
        return EXIT_USAGE

    fabric = checked_fabric(
        "gpunet rollout-plan", args.inventory, args.vault_password_file, "nothing planned"
    )
    if fabric is None:
        return EXIT_USAGE
    root = project_root(args.inventory)
    intended = args.intended_dir or root / "intended" / fabric.name
    named = [name.strip() for name in args.canary.split(",") if name.strip()]
    try:
        plan = plan_canary(fabric, intended, named)
    except RolloutError as error:
        return usage(str(error))
    out = args.out or root / "rollouts" / f"{fabric.name}-{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}"
    folder = out / "previous" / fabric.name
    folder.mkdir(parents=True, exist_ok=True)
    for name, previous in plan.previous.items():
        (folder / f"{name}.cfg").write_text(previous.config)
    document = plan.as_dict() | {
        "fabric": fabric.name,
        "intended_dir": str(intended),
        "previous_dir": str(out / "previous"),
        "out": str(out),
    }
    (out / "plan.json").write_text(json.dumps(document, indent=2) + "\n")
    json.dump(document, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return EXIT_OK


def run_previous(args: argparse.Namespace) -> int:
    from gpunet.model.check import checked_fabric
    from gpunet.netdev.errors import PushError
    from gpunet.netdev.rollout import RolloutError, running_intent

    def usage(message: str) -> int:
        print(f"gpunet rollout-previous: {message}", file=sys.stderr)
        return EXIT_USAGE

    try:
        plan = json.loads(args.plan.read_text())
        planned = plan["previous"][args.switch]
        intended = Path(plan["intended_dir"]) / f"{args.switch}.cfg"
        rollback = Path(plan["previous_dir"]) / plan["fabric"] / f"{args.switch}.cfg"
    except (OSError, ValueError, KeyError, TypeError) as error:
        return usage(f"{args.plan}: not a plan of gpunet rollout-plan with canary {args.switch} ({error})")
    try:
        running = args.running.read_text()
    except OSError as error:
        return usage(f"--running {args.running}: {error.strerror}")
    fabric = checked_fabric(
        "gpunet rollout-previous", args.inventory, args.vault_password_file, "nothing chosen"
    )
    if fabric is None:
        return EXIT_USAGE
    if args.switch not in fabric.switches:
        return usage(f"{args.switch} is not a switch of fabric {fabric.name}")
    try:
        found = running_intent(intended, fabric.switches[args.switch], running)
    except (RolloutError, PushError) as error:
        return usage(str(error))
    if found is None:
        result = {
            "switch": args.switch,
            "commit": planned,
            "matched": False,
            "note": f"{args.switch} ran no committed version of {intended.name} before the push (drift): "
            f"the rollback is the newest earlier version, {planned[:12]}; see `gpunet drift`",
        }
    else:
        commit, text = found
        rollback.write_text(text)
        result = {"switch": args.switch, "commit": commit, "matched": True, "note": ""}
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return EXIT_OK
