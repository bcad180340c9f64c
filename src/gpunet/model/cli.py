"""`gpunet inventory check`: validate an inventory and report every problem."""

from __future__ import annotations

import argparse
import json
import sys

from gpunet.model.check import check_inventory
from gpunet.model.schema_docs import render_reference

EXIT_OK = 0
EXIT_INVALID = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    inventory = subparsers.add_parser("inventory", help="work with gpunet inventories")
    actions = inventory.add_subparsers(dest="inventory_command", required=True)
    check = actions.add_parser("check", help="validate an inventory: schema and cross-checks")
    add_inventory_arguments(check)
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    check.set_defaults(func=run_check)
    docs = actions.add_parser("docs", help="print the inventory reference generated from the JSON Schemas")
    docs.set_defaults(func=run_docs)


def add_inventory_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every command that reads an inventory takes."""
    parser.add_argument("-i", "--inventory", required=True, help="inventory folder or file")
    parser.add_argument(
        "--vault-password-file",
        help="file holding the vault password (default: $ANSIBLE_VAULT_PASSWORD_FILE)",
    )


def run_docs(args: argparse.Namespace) -> int:
    print(render_reference())
    return EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    result = check_inventory(args.inventory, args.vault_password_file)
    if args.format == "json":
        json.dump(result.as_dict(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif result.ok and result.fabric is not None:
        print(f"OK: {result.fabric.summary()}")
        if result.skipped_files:
            skipped = len(result.skipped_files)
            print(f"note: {skipped} vault-encrypted file(s) not read (no vault password given)")
    else:
        for problem in result.problems:
            print(problem, file=sys.stderr)
        print(f"{len(result.problems)} problem(s) in {args.inventory}", file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_INVALID
