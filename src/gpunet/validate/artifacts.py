"""Read the artifacts folder: raw outputs by path, parsed on first use.

Layout (written by playbooks/verify.yml):
    manifest.json
    hosts/<host>/<tool>.txt                     e.g. ibstat.txt, mlnx_qos.<netdev>.txt
    pairs/<round>/<client>__<server>__<nic>.<tool>.txt   tool: ib_write_bw, ib_read_lat
    pairs/iperf3/<client>__<server>.iperf3.txt
    nccl/<run>.txt
    switches/<switch>/<before|after>/<tool>.txt
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path
from typing import Any

from gpunet.validate.capture_file import (
    FIRST_READ_BYTES,
    MAX_CAPTURE_BYTES,
    UnsafeFileError,
    byte_count,
    read_bytes,
)
from gpunet.validate.manifest import Manifest, read_manifest
from gpunet.validate.parsers import ParseError, parse

__all__ = [
    "FIRST_READ_BYTES",
    "MAX_CAPTURE_BYTES",
    "Artifacts",
    "InputError",
    "UnsafeFileError",
    "read_bytes",
]


class InputError(Exception):
    """A check's input is missing or unreadable; the message says which file and why."""


# How many files of a tool read by no later check stay parsed: a check reads one device's files
# together (a host's topology once per NIC), so a short window keeps every repeat.
RECENT_FILES = 64
# Captures of configuration state are byte-identical on every host (or switch) of a homogeneous
# cluster: a small one whose bytes were parsed lately as the same tool gets that parse. Parsing is
# a function of the tool and the text alone, and no check changes what it is given, so the answer
# is what parsing again would give. Measurements (perftest, nccl-tests, chrony, counters) and
# captures with GUIDs, serials or addresses differ from device to device and are not looked up.
CONFIGURATION_STATE = frozenset(
    {
        "mlnx_qos",
        "traffic-class",
        "nvidia-smi-topo",
        "nft-ruleset",
        "nccl-conf",
        "lspci-acs",
        "lsmod",
        "sonic-show-pfc-priority",
        "sonic-show-ecn",
        "cumulus-nv-show-qos-roce",
        "eos-show-pfc",
        "junos-show-cos-interface",
        "junos-show-cos-congestion-notification",
    }
)
# Large enough for an HGX host's ACS view of lspci (about 25 KB: 350 devices); 128 of them are
# 8 MB of keys at most.
SAME_TEXT_MAX_BYTES = 64 * 1024
SAME_TEXTS = 128


def unsafe_relative_path(relative: str) -> str | None:
    """Why `relative` (built from manifest names) may not be read inside the folder, or None."""
    if "\0" in relative:
        return "holds a NUL character"
    if relative.startswith("/"):
        return "is an absolute path"
    if any(part in ("", ".", "..") for part in relative.split("/")):
        return "leaves its folder (an empty, '.' or '..' part)"
    return None


# What one judging process reads in all: the 4,096-host set is 922 MiB (docs/scale.md).
MAX_RUN_BYTES = 16 * 1024 * 1024 * 1024
# A collection-error.txt holds one line; more is not a reason but something else.
MAX_REASON_BYTES = 64 * 1024


def collection_error(folder: str, device_folder: str) -> str | None:
    """The first line of `<device_folder>/collection-error.txt` (why nothing was collected from the
    device), read as a capture is (a regular file only, capped, in a folder inside `folder`);
    None when there is none."""
    root = os.path.realpath(folder)
    if not os.path.realpath(os.path.join(folder, device_folder)).startswith(root + os.sep):
        return f"{device_folder}/ leads out of the artifacts folder: not read"
    try:
        data = read_bytes(os.path.join(folder, device_folder, "collection-error.txt"), MAX_REASON_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        return f"collection-error.txt {error.strerror}"
    lines = data.decode("utf-8", errors="replace").strip().splitlines()
    return lines[0][:200] if lines else "no reason given"


class Artifacts:
    """One judgement's view of the folder. Each file is read and parsed once however many checks
    read it, and `keep_only` drops what no later check reads, so a 4,096-host judgement does not
    hold every parsed artifact until the report (a dropped file read again is parsed again).
    Files of the tools named by `forget_after_use` (read by the running check and no later one)
    are kept only among the last RECENT_FILES read: 2,560 switches' parsed queue counters were
    1.1 GiB, held to the end of the check for nothing."""

    def __init__(self, root: Path, manifest: Manifest | None = None, measuring: bool = False) -> None:
        self.root = root
        self.manifest = manifest or read_manifest(root)
        self.measuring = measuring  # checks record the numbers they read (Check.measure)
        self.last_read: str | None = None  # named by the error result of a check that crashes
        # Parsed files by (relative path, tool, subset).
        self._parsed: dict[tuple[str, str, str | None], dict[str, Any]] = {}
        self._recent: OrderedDict[tuple[str, str, str | None], dict[str, Any]] = OrderedDict()
        self._transient: frozenset[str] = frozenset()
        self._folder = os.fspath(root)
        # Folders (relative) found to stay inside the artifacts folder: one realpath per folder,
        # not per file, so a host folder that is a symlink out is refused without a stat per read.
        self._real_root = os.path.realpath(self._folder)
        self._inside: set[str] = set()
        self.bytes_read = 0
        self._same_text: OrderedDict[tuple[str, str | None, bytes], dict[str, Any]] = OrderedDict()

    def parsed(self, relative: str, tool: str, subset: str | None = None) -> dict[str, Any]:
        """The file parsed as `tool`'s output; `subset`: only that part (parsers.SUBSETS)."""
        self.last_read = relative
        key = (relative, tool, subset)
        found = self._parsed.get(key)
        if found is not None:
            return found
        found = self._recent.get(key)
        if found is not None:
            self._recent.move_to_end(key)
            return found
        found = self._parse_file(self._checked_path(relative), tool, relative, subset)
        if tool in self._transient:
            self._recent[key] = found
            if len(self._recent) > RECENT_FILES:
                self._recent.popitem(last=False)
        else:
            self._parsed[key] = found
        return found

    def forget_after_use(self, tools: set[str]) -> None:
        """From now on keep the files of `tools` only among the last few read."""
        self._transient = frozenset(tools)

    def keep_only(self, tools: set[str]) -> None:
        """Forget the parsed files of every tool not in `tools`."""
        self._parsed = {key: value for key, value in self._parsed.items() if key[1] in tools}
        self._recent.clear()

    def host(self, host: str, tool: str, qualifier: str = "") -> dict[str, Any]:
        name = f"{tool}.{qualifier}" if qualifier else tool
        return self.parsed(f"hosts/{host}/{name}.txt", tool)

    def pair_file(self, round_index: int, client: str, server: str, nic: str, tool: str) -> str:
        return f"pairs/{round_index}/{client}__{server}__{nic}.{tool}.txt"

    def switch(self, switch: str, phase: str, tool: str, subset: str | None = None) -> dict[str, Any]:
        try:
            return self.parsed(f"switches/{switch}/{phase}/{tool}.txt", tool, subset)
        except InputError as error:
            # The collection leaves the reason a whole switch could not be read (unreachable, host key).
            reason = collection_error(self._folder, f"switches/{switch}/{phase}")
            if reason is not None:
                raise InputError(f"{error}: {reason}") from None
            raise

    def _checked_path(self, relative: str) -> str:
        """The path to open for `relative`; InputError when it would lead out of the folder."""
        folder = relative.rpartition("/")[0]
        if folder not in self._inside:
            if (problem := unsafe_relative_path(relative)) is not None:
                raise InputError(f"{relative}: {problem}")
            real = os.path.realpath(os.path.join(self._folder, folder))
            if real != self._real_root and not real.startswith(self._real_root + os.sep):
                raise InputError(f"{relative}: {folder}/ leads out of the artifacts folder (to {real})")
            self._inside.add(folder)
        return os.path.join(self._folder, relative)

    def _parse_file(self, path: str, tool: str, relative: str, subset: str | None = None) -> dict[str, Any]:
        try:
            # One read of the bytes and one decode (what read_text(errors="replace") does, without
            # pathlib's per-call overhead, which showed at 200,000 files).
            data = read_bytes(path)
        except FileNotFoundError:
            raise InputError(f"{relative} was not collected") from None
        except OSError as error:
            raise InputError(f"{relative}: {error.strerror}") from None
        except ValueError:  # a NUL in the name
            raise InputError(f"{relative!r}: holds a NUL character") from None
        self.bytes_read += len(data)
        if self.bytes_read > MAX_RUN_BYTES:
            raise InputError(
                f"{relative}: not read: this run read more than the {byte_count(MAX_RUN_BYTES)} cap"
            )
        configuration = tool in CONFIGURATION_STATE and len(data) <= SAME_TEXT_MAX_BYTES
        same = (tool, subset, data) if configuration else None
        if same is not None and (found := self._same_text.get(same)) is not None:
            self._same_text.move_to_end(same)
            return found
        text = data.decode("utf-8", errors="replace")
        try:
            found = parse(tool, text, subset)
        except ParseError as error:  # not remembered: each file's error names that file
            first_line = next((line.strip() for line in text.splitlines() if line.strip()), "empty file")
            raise InputError(f"{relative}: {error} (output starts: {first_line[:120]!r})") from None
        if same is not None:
            self._same_text[same] = found
            if len(self._same_text) > SAME_TEXTS:
                self._same_text.popitem(last=False)
        return found
