"""`gpunet plan`: size a fat-tree for N GPUs, price its cabling, compare designs, write an inventory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gpunet.gcpause import paused_gc
from gpunet.model.errors import Problem
from gpunet.plan import report
from gpunet.plan.designs import compare, recommend
from gpunet.plan.fattree import Topology
from gpunet.plan.inventory import (
    InventoryOptions,
    InventorySkeleton,
    build_skeleton,
    check_skeleton,
    write_skeleton,
)
from gpunet.plan.request import (
    INVENTORY_FIELDS,
    PlanInputError,
    build_request,
    load_request_file,
    parse_cost_factors,
)

EXIT_OK = 0
EXIT_INVALID = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    plan = subparsers.add_parser(
        "plan",
        help="size a rail-optimised fat-tree, price its cabling and write an inventory skeleton",
        description="Size a two- or three-tier fat-tree for a GPU count; see docs/planner.md.",
    )
    plan.add_argument("--from", dest="request_file", help="YAML file with the same fields (underscores)")
    plan.add_argument("--gpus", type=int, help="number of GPUs (required here or in --from)")
    plan.add_argument("--gpus-per-node", type=int, help="GPUs per node (default 8)")
    plan.add_argument("--nics-per-node", type=int, help="fabric NICs per node = rails (default 8)")
    plan.add_argument(
        "--nic-speed", dest="nic_speed_gbps", type=int, help="NIC and port speed, Gb/s (default 400)"
    )
    plan.add_argument("--switch-radix", type=int, help="switch ports at the NIC speed (default 64)")
    plan.add_argument("--tiers", help="auto, 2 or 3 (default auto: the fewest that fit)")
    plan.add_argument("--oversubscription", help="leaf downlink:uplink capacity (default 1:1)")
    plan.add_argument("--rail-optimised", help="yes or no (default yes)")
    plan.add_argument("--rack-size", type=int, help="GPU nodes per rack (default 4)")
    plan.add_argument(
        "--intra-node-gbps", type=float, help="per-GPU NVLink Gb/s, one direction (default 3600)"
    )
    plan.add_argument(
        "--distances", help="YAML/JSON file of cable lengths and reach limits (docs/planner.md)"
    )
    plan.add_argument("--cost-factors", help="relative cost per link, e.g. dac=1.0,aoc=1.5,optics=2.2")
    plan.add_argument("--format", choices=("table", "json", "csv"), default="table", help="output format")
    plan.add_argument("--compare", action="store_true", help="show every candidate design side by side")
    plan.add_argument("--write-inventory", metavar="DIR", help="write an inventory skeleton into DIR (new)")
    plan.add_argument("--name", help="fabric name in the written inventory (default planned)")
    plan.add_argument("--platform", help="switch platform in the written inventory (default sonic)")
    plan.add_argument("--gpu-model", help="GPU model in the written inventory (default H100-SXM5-80GB)")
    plan.add_argument("--mgmt-pool", help="management addresses (default 192.0.2.0/24, else 2001:db8:a::/64)")
    plan.add_argument("--fabric-pool", help="NIC addresses (default 198.51.100.0/24, else 2001:db8:f::/48)")
    plan.set_defaults(func=run_plan)


CLI_FIELDS = (
    "gpus",
    "gpus_per_node",
    "nics_per_node",
    "nic_speed_gbps",
    "switch_radix",
    "tiers",
    "oversubscription",
    "rail_optimised",
    "rack_size",
    "intra_node_gbps",
    *INVENTORY_FIELDS,
)


def request_values(args: argparse.Namespace) -> dict[str, Any]:
    """File values first, then every flag given on the command line over them."""
    values = load_request_file(args.request_file) if args.request_file else {}
    values.update({key: getattr(args, key) for key in CLI_FIELDS if getattr(args, key) is not None})
    if args.distances:
        values["distances"] = load_request_file(args.distances, "distance fields")
    if args.cost_factors:
        try:
            values["cost_factors"] = parse_cost_factors(args.cost_factors)
        except ValueError:
            raise PlanInputError(
                [Problem("--cost-factors", "is not NAME=NUMBER,...", args.cost_factors, "dac=1.0,aoc=1.5")]
            ) from None
    return values


def run_plan(args: argparse.Namespace) -> int:
    try:
        values = request_values(args)
        request = build_request(values, "plan")
        # Millions of links, ports and YAML nodes that live until the end: not garbage to look for.
        with paused_gc():
            recommendation = recommend(request)
            candidates = compare(request) if args.compare else None
            if args.write_inventory:
                options = InventoryOptions(**{key: values[key] for key in INVENTORY_FIELDS if key in values})
                skeleton, written = write_inventory(
                    recommendation.summary.topology, options, Path(args.write_inventory)
                )
    except PlanInputError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return EXIT_INVALID
    if args.format == "json":
        print(report.plan_json(recommendation, candidates))
    elif args.format == "csv":
        summaries = [c.summary for c in candidates if c.summary] if candidates else [recommendation.summary]
        sys.stdout.write(report.bom_csv(summaries))
    else:
        print(report.plan_text(recommendation))
        if candidates:
            print("\n" + report.comparison_text(candidates))
    if args.write_inventory:
        print(
            f"wrote {len(written)} files to {args.write_inventory}; it passes `gpunet inventory check`",
            file=sys.stderr,
        )
        firewall = skeleton.fabric["firewall"]
        print(
            f"addresses: NICs in {', '.join(firewall['fabric_cidrs'])}, "
            f"management in {', '.join(firewall['mgmt_cidrs'])} (--fabric-pool, --mgmt-pool to choose)",
            file=sys.stderr,
        )
    return EXIT_OK


def write_inventory(
    topology: Topology, options: InventoryOptions, directory: Path
) -> tuple[InventorySkeleton, list[Path]]:
    """Build, check, then write: a skeleton that fails the inventory check is a planner bug, never written."""
    skeleton = build_skeleton(topology, options)
    problems = check_skeleton(skeleton)
    if problems:
        raise PlanInputError(
            [Problem("plan", "internal: the planned inventory fails its check"), *problems[:20]]
        )
    return skeleton, write_skeleton(skeleton, directory)
