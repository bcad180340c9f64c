"""`gpunet cache`: where gpunet keeps what it may recompute, how much it holds, and `--clear`."""

from __future__ import annotations

import argparse
import contextlib

from gpunet.cachedir import MAX_FOLDER_BYTES, kind_folder, records_in

# (kind, the environment variable that moves it or turns it off, what it holds)
KINDS = (
    ("inventory", "GPUNET_PARSE_CACHE", "parsed inventory files and inventory check results"),
    ("render", "GPUNET_RENDER_CACHE", "render inputs and written digests"),
)


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "cache",
        help="where gpunet's caches live and how much they hold",
        description="Print each cache folder, its records and its size against the cap "
        f"({MAX_FOLDER_BYTES // 2**20} MiB a folder, least recently written out first). "
        "Deleting a cache folder is always safe.",
    )
    parser.add_argument("--clear", action="store_true", help="delete every record gpunet wrote there")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for kind, env, holds in KINDS:
        folder = kind_folder(kind, env)
        if folder is None:
            print(f"{kind}: off ({env}); {holds}")
            continue
        records = records_in(folder)
        if args.clear:
            for path, _, _ in records:
                with contextlib.suppress(OSError):
                    path.unlink()
            print(f"{kind}: {folder}: removed {len(records)} record(s)")
            continue
        total = sum(size for _, size, _ in records)
        print(
            f"{kind}: {folder} ({len(records)} record(s), {total / 2**20:.1f} MiB of "
            f"{MAX_FOLDER_BYTES // 2**20} MiB; {env}=off or a folder changes it); {holds}"
        )
    return 0
