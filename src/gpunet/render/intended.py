"""Write rendered configs to an intended/ folder, touching only files whose content changed.

The folder may hold other people's files: gpunet removes only what its manifest says it wrote
(see manifest.py), and refuses a folder of unknown files that has no manifest unless forced.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.model.names import HOST_NAME, shown
from gpunet.render.manifest import (
    MANIFEST_NAME,
    RenderFolderError,
    digest,
    digests_manifest_text,
    read_manifest,
)
from gpunet.render.renderer import RenderedSwitch, StagedSwitch

Printed = RenderedSwitch | StagedSwitch


@dataclass
class WriteReport:
    out_dir: Path
    changed: list[str] = field(default_factory=list)  # existed with other content
    missing: list[str] = field(default_factory=list)  # did not exist
    extra: list[str] = field(default_factory=list)  # gpunet's files of switches no longer in the inventory
    unchanged: list[str] = field(default_factory=list)
    # gpunet wrote these for switches no longer in the inventory, but they were edited since: kept.
    edited: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)  # not gpunet's: left alone
    manifest_current: bool = True  # the manifest lists exactly the rendered files and their digests
    diffs: dict[str, str] = field(default_factory=dict)  # unified diff per changed, missing or extra file
    digests: dict[str, str] = field(default_factory=dict)  # every rendered file's digest (the manifest's)

    @property
    def up_to_date(self) -> bool:
        return not (self.changed or self.missing or self.extra or self.edited)


def expected_files(rendered: Mapping[str, Printed]) -> dict[str, tuple[Printed, bool]]:
    """File name -> (its switch, whether it is the config rather than the summary): the text is
    read from the switch one file at a time (a StagedSwitch reads it from its staging file)."""
    files = {}
    for name, switch in rendered.items():
        files[f"{name}.cfg"] = (switch, True)
        files[f"{name}.md"] = (switch, False)
    return files


def write_intended(
    rendered: Mapping[str, Printed],
    out_dir: str | Path,
    *,
    check: bool = False,
    force: bool = False,
    with_diffs: bool = True,
) -> WriteReport:
    """Compare (and unless `check`, write) the rendered files under `out_dir`.

    `with_diffs=False` leaves `WriteReport.diffs` empty: a diff of every file of a fabric rendered
    from nothing costs seconds that nobody reads without `--diff`.

    Files of switches that left the inventory are reported as extra and, when writing, removed, if
    the manifest lists them unedited. Raises RenderFolderError, before writing anything, when
    `out_dir` is not a folder, or holds files gpunet did not write and no manifest (unless `force`).
    """
    out = Path(out_dir)
    wanted = expected_files(rendered)
    report = WriteReport(out_dir=out)
    classify_existing(out, wanted, report, force=force, with_diffs=with_diffs)
    # Each file is compared and, unless `check`, written before the next is read: one file's text
    # in memory at a time, in the order (sorted files, the manifest, removals) of writing them all
    # at the end.
    writer = None if check else _Writer(out)
    for file_name in sorted(wanted):
        switch, is_config = wanted[file_name]
        content = switch.config if is_config else switch.summary
        report.digests[file_name] = switch.config_digest if is_config else switch.summary_digest
        path = out / file_name
        old = path.read_text(errors="replace") if path.is_file() else None
        if old == content:
            report.unchanged.append(file_name)
            continue
        (report.missing if old is None else report.changed).append(file_name)
        if with_diffs:
            report.diffs[file_name] = _diff(file_name, old or "", content)
        if writer is not None:
            writer.write(file_name, content)
    manifest = digests_manifest_text(report.digests)
    manifest_path = out / MANIFEST_NAME
    report.manifest_current = manifest_path.is_file() and manifest_path.read_text() == manifest
    if writer is not None:
        if not report.manifest_current:
            writer.write(MANIFEST_NAME, manifest)
        for file_name in report.extra:
            writer.remove(file_name)
        writer.ensure_folder()
    return report


class _Writer:
    """Writes and removes files in `out` (created on first use), counting what it did, so that a
    failure says how many files were written or removed before."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.done = 0
        self._folder_made = False

    def ensure_folder(self) -> None:
        if not self._folder_made:
            self._do(lambda: None, count=False)

    def write(self, file_name: str, content: str) -> None:
        self._do(lambda: (self.out / file_name).write_text(content))

    def remove(self, file_name: str) -> None:
        self._do(lambda: (self.out / file_name).unlink())

    def _do(self, action: Callable[[], object], count: bool = True) -> None:
        try:
            if not self._folder_made:
                self.out.mkdir(parents=True, exist_ok=True)
                self._folder_made = True
            action()
        except OSError as error:
            raise RenderFolderError(
                f"{self.out}: cannot write ({error.strerror or error}); "
                f"{self.done} file(s) written or removed before"
            ) from None
        if count:
            self.done += 1


def classify_existing(
    out: Path, wanted: Mapping[str, object], report: WriteReport, *, force: bool, with_diffs: bool
) -> None:
    """Sort what is already in `out` into gpunet's left-overs and other people's files."""
    if out.exists() and not out.is_dir():
        raise RenderFolderError(f"{out}: is not a folder; give --out a folder (it is created if missing)")
    for name in wanted:  # a switch name outside the name rule (the inventory check refuses it)
        if (problem := HOST_NAME.problem(name.rpartition(".")[0])) is not None:
            raise RenderFolderError(f"{out / shown(name)}: not written: {problem}; nothing was written")
    if not out.exists():
        return
    linked = sorted(name for name in [*wanted, MANIFEST_NAME] if (out / name).is_symlink())
    if linked:
        raise RenderFolderError(
            f"{out / linked[0]}: is a symbolic link; gpunet writes only regular files inside the folder"
        )
    not_files = sorted(name for name in wanted if (out / name).exists() and not (out / name).is_file())
    if not_files:
        raise RenderFolderError(f"{out / not_files[0]}: is not a file, so gpunet cannot write it there")
    written = read_manifest(out)
    others = sorted(p.name for p in out.iterdir() if p.name != MANIFEST_NAME and p.name not in wanted)
    if written is None and others and not force:
        listed = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise RenderFolderError(
            f"{out}: holds {len(others)} file(s) gpunet did not write ({listed}) and no {MANIFEST_NAME}; "
            "choose an empty or new folder, or pass --force to write beside them"
        )
    for name in others:
        path = out / name
        recorded = (written or {}).get(name)
        if recorded is None or not path.is_file():
            report.foreign.append(name)
            continue
        content = path.read_text(errors="replace")
        if digest(content) == recorded:
            report.extra.append(name)
            if with_diffs:
                report.diffs[name] = _diff(name, content, "")
        else:
            report.edited.append(name)


def _diff(file_name: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{file_name}", f"b/{file_name}"
        )
    )
