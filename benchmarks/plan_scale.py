"""How long `gpunet plan` takes as clusters grow: a report, never a pass/fail test.

Run: .venv/bin/python benchmarks/plan_scale.py [--max-check-gpus N] [--write]
Prints a Markdown table: layout + analysis, inventory skeleton, the in-memory inventory check that
`--write-inventory` runs before writing, and (with --write) writing the files to a temporary folder.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from gpunet.plan.designs import recommend
from gpunet.plan.inventory import InventoryOptions, build_skeleton, check_skeleton, write_skeleton
from gpunet.plan.request import build_request

SIZES = (256, 2048, 8192, 32768, 65536)


def timed(action):
    start = time.perf_counter()
    result = action()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-check-gpus", type=int, default=8192, help="skip the check above this size")
    parser.add_argument("--write", action="store_true", help="also time writing the inventory files")
    args = parser.parse_args()
    print("| GPUs | design | switches | links | plan + analysis s | skeleton s | check s | write s |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for gpus in SIZES:
        request = build_request({"gpus": gpus, "switch_radix": 64})
        recommendation, plan_s = timed(lambda request=request: recommend(request))
        topology = recommendation.summary.topology
        skeleton, skeleton_s = timed(lambda topology=topology: build_skeleton(topology, InventoryOptions()))
        check_s = write_s = "-"
        if gpus <= args.max_check_gpus:
            problems, seconds = timed(lambda skeleton=skeleton: check_skeleton(skeleton))
            check_s = f"{seconds:.2f}" + ("" if not problems else f" ({len(problems)} problems!)")
        if args.write:
            with tempfile.TemporaryDirectory() as folder:
                _, seconds = timed(
                    lambda skeleton=skeleton, folder=folder: write_skeleton(skeleton, Path(folder) / "i")
                )
                write_s = f"{seconds:.2f}"
        print(
            f"| {gpus} | {recommendation.summary.design} | {len(topology.switches)} | {len(topology.links)} "
            f"| {plan_s:.2f} | {skeleton_s:.2f} | {check_s} | {write_s} |"
        )


if __name__ == "__main__":
    main()
