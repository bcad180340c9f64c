"""The `gpunet` command. Each feature module registers its own subcommand."""

from __future__ import annotations

import argparse
import importlib
import sys

from gpunet import __version__

# Modules exposing register(subparsers); their subcommands set `func(args) -> int`.
COMMAND_MODULES = (
    "gpunet.model.cli",
    "gpunet.validate.parse_cli",
    "gpunet.validate.cabling_cli",
    "gpunet.lab.cli",
    "gpunet.lab.switchsim.cli",
    "gpunet.render.cli",
    "gpunet.plan.cli",
    "gpunet.netdev.drift_cli",
    "gpunet.netdev.rollout_cli",
    "gpunet.nodecheck.cli",
    "gpunet.cache_cli",
)

EXIT_INTERNAL = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpunet", description="Infrastructure as code for GPU cluster networks."
    )
    parser.add_argument("--version", action="version", version=f"gpunet {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # the one place that turns a bug into a one-line message
        print(f"gpunet: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
