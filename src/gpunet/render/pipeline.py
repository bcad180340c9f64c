"""From a loaded inventory to the files in intended/: the steps `gpunet render` and the render
action plugin share (check, render, write), with both kinds of reuse."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpunet.gcpause import paused_gc
from gpunet.model.build import RawInventory
from gpunet.model.check import check_raw
from gpunet.model.errors import Problem
from gpunet.render.fabric_reuse import FabricReuse
from gpunet.render.intended import WriteReport, write_intended
from gpunet.render.renderer import render_fabric
from gpunet.render.reuse import RenderReuse
from gpunet.render.versions import os_version_problems


@dataclass
class RenderOutcome:
    report: WriteReport | None  # None when the inventory has problems: nothing was rendered
    problems: list[Problem] = field(default_factory=list)
    # True when the inventory was the one last rendered and every file was current: nothing built.
    reused_whole: bool = False


def render_inventory(
    raw: RawInventory,
    out_dir_for: Callable[[str], Path],
    *,
    check: bool,
    force: bool,
    with_diffs: bool,
) -> RenderOutcome:
    """Check `raw`, render its fabric and write (unless `check`) into `out_dir_for(fabric name)`.

    Raises RenderFolderError, before writing anything, when the folder cannot be used. `check`
    (and check mode) always builds and prints afresh; otherwise fabric_reuse.py and reuse.py skip
    what the last render into that folder already did for the same inputs.

    Once the fabric is built `raw` is no longer needed: a caller that passes the loaded inventory
    straight in, holding no name for it (as `gpunet render` does), has it freed before printing.
    """
    whole = None if check else FabricReuse(raw)
    if whole is not None and whole.fabric_name is not None:
        report = whole.up_to_date(out_dir_for(whole.fabric_name), force=force)
        if report is not None:
            return RenderOutcome(report=report, reused_whole=True)
    result = check_raw(raw)
    del raw  # the parsed inventory: at 32,768 hosts about 800 MiB the fabric no longer needs
    if not result.ok or result.fabric is None:
        return RenderOutcome(report=None, problems=result.problems)
    fabric = result.fabric
    out_dir = out_dir_for(fabric.name)
    reuse = None if check else RenderReuse(out_dir)
    # Forked workers print into the staging folder, so that the text of every switch (1.4 GB at
    # 10,240 SONiC switches) is never held here at once; write_intended reads it back file by file.
    with paused_gc(), tempfile.TemporaryDirectory(prefix="gpunet-render-") as staging:
        rendered = render_fabric(fabric, reuse, staging=Path(staging))
        problems = os_version_problems(fabric, rendered)
        if problems:  # nothing written: a switch on that release would refuse part of its config
            return RenderOutcome(report=None, problems=problems)
        report = write_intended(rendered, out_dir, check=check, force=force, with_diffs=with_diffs)
    if reuse is not None:
        reuse.flush()
    if whole is not None:
        whole.record(fabric.name, out_dir, report.digests)
    return RenderOutcome(report=report)
