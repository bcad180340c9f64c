"""`gpunet parse TOOL FILE`: print tool output as JSON; exit 3 with a one-line reason if unreadable."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpunet.validate.parsers import PARSERS, ParseError, parse

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_UNPARSEABLE = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    command = subparsers.add_parser(
        "parse", help="parse raw tool output (ibstat, perftest, nccl-tests, switch show commands) to JSON"
    )
    command.add_argument("tool", choices=sorted(PARSERS), metavar="TOOL", help=", ".join(sorted(PARSERS)))
    command.add_argument("file", help="file holding the tool's output ('-' for stdin)")
    command.set_defaults(func=run_parse)


def run_parse(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(errors="replace")
    except OSError as error:
        print(f"gpunet parse: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    try:
        parsed = parse(args.tool, text)
    except ParseError as error:
        print(f"gpunet parse: {args.file}: {error}", file=sys.stderr)
        return EXIT_UNPARSEABLE
    json.dump(parsed, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return EXIT_OK
