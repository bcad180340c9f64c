"""Write rendered configs to an intended/ folder, touching only files whose content changed."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.render.renderer import RenderedSwitch

RENDERED_SUFFIXES = (".cfg", ".md")


@dataclass
class WriteReport:
    out_dir: Path
    changed: list[str] = field(default_factory=list)  # existed with other content
    missing: list[str] = field(default_factory=list)  # did not exist
    extra: list[str] = field(default_factory=list)  # rendered files of switches no longer in the inventory
    unchanged: list[str] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)  # unified diff per changed, missing or extra file

    @property
    def up_to_date(self) -> bool:
        return not (self.changed or self.missing or self.extra)


def expected_files(rendered: Mapping[str, RenderedSwitch]) -> dict[str, str]:
    files = {}
    for name, switch in rendered.items():
        files[f"{name}.cfg"] = switch.config
        files[f"{name}.md"] = switch.summary
    return files


def write_intended(
    rendered: Mapping[str, RenderedSwitch], out_dir: str | Path, *, check: bool = False
) -> WriteReport:
    """Compare (and unless `check`, write) the rendered files under `out_dir`.

    Files of switches that left the inventory are reported as extra and, when writing, removed.
    """
    out = Path(out_dir)
    report = WriteReport(out_dir=out)
    wanted = expected_files(rendered)
    for file_name, content in sorted(wanted.items()):
        path = out / file_name
        old = path.read_text() if path.is_file() else None
        if old == content:
            report.unchanged.append(file_name)
            continue
        (report.missing if old is None else report.changed).append(file_name)
        report.diffs[file_name] = _diff(file_name, old or "", content)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
    if out.is_dir():
        for path in sorted(out.iterdir()):
            if path.suffix in RENDERED_SUFFIXES and path.name not in wanted:
                report.extra.append(path.name)
                report.diffs[path.name] = _diff(path.name, path.read_text(), "")
                if not check:
                    path.unlink()
    return report


def _diff(file_name: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{file_name}", f"b/{file_name}"
        )
    )
