"""`gpunet parse TOOL FILE`: print tool output as JSON; exit 3 with a one-line reason if unreadable."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys

from gpunet.validate.capture_file import MAX_CAPTURE_BYTES, UnsafeFileError, byte_count, read_bytes
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


def read_input(name: str) -> str:
    """The file's text, bounded as every capture is (capture_file: a regular file of at most
    MAX_CAPTURE_BYTES; a FIFO, a device or an endless stream is refused, never read forever). A
    symbolic link given on the command line is the user's own choice: it is followed."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_CAPTURE_BYTES + 1)
        if len(data) > MAX_CAPTURE_BYTES:
            raise UnsafeFileError(errno.EFBIG, f"is larger than the {byte_count(MAX_CAPTURE_BYTES)} cap")
    else:
        data = read_bytes(os.path.realpath(name))
    return data.decode(errors="replace")


def run_parse(args: argparse.Namespace) -> int:
    try:
        text = read_input(args.file)
    except OSError as error:
        reason = error.strerror or str(error)
        print(f"gpunet parse: cannot read {args.file}: {reason}", file=sys.stderr)
        return EXIT_USAGE
    try:
        parsed = parse(args.tool, text)
    except ParseError as error:
        print(f"gpunet parse: {args.file}: {error}", file=sys.stderr)
        return EXIT_UNPARSEABLE
    json.dump(parsed, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return EXIT_OK
