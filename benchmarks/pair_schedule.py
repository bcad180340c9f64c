"""How long the perftest pair scheduler takes at scale: a report, never a pass/fail test.

Run: .venv/bin/python benchmarks/pair_schedule.py [--hosts 4096] [--rails 8]
Prints a Markdown table: ring (two rounds, materialised as Pair objects) and all-pairs
(round-robin, n-1 rounds per rail; generated round by round, the way the roles consume it).
"""

from __future__ import annotations

import argparse
import time

from gpunet.validate.pairs import ALL_PAIRS, RING, all_pairs_rounds, schedule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=4096)
    parser.add_argument("--rails", type=int, default=8)
    args = parser.parse_args()
    hosts = [f"gpu{i:05d}" for i in range(args.hosts)]
    by_rail = {rail: hosts for rail in range(args.rails)}
    print(f"{args.hosts} hosts x {args.rails} rails\n")
    print("| mode | rounds | pairs | seconds |")
    print("| --- | ---: | ---: | ---: |")

    start = time.perf_counter()
    ring = schedule(by_rail, RING)
    seconds = time.perf_counter() - start
    print(f"| {RING} (materialised) | {len(ring)} | {sum(map(len, ring))} | {seconds:.3f} |")

    # One rail's host pairing, generated lazily; every rail reuses the same pairing per round.
    start = time.perf_counter()
    rounds = pairs = 0
    for round_ in all_pairs_rounds(hosts):
        rounds += 1
        pairs += len(round_)
    seconds = time.perf_counter() - start
    print(f"| {ALL_PAIRS} (generated, per rail) | {rounds} | {pairs * args.rails} | {seconds:.3f} |")

    small = hosts[:256]
    start = time.perf_counter()
    plan = schedule({rail: small for rail in range(args.rails)}, ALL_PAIRS)
    seconds = time.perf_counter() - start
    print(f"| {ALL_PAIRS} (materialised, 256 hosts) | {len(plan)} | {sum(map(len, plan))} | {seconds:.3f} |")


if __name__ == "__main__":
    main()
