"""Print each switch's structured config through its platform's templates."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from gpunet.design import design_switch
from gpunet.forked import run_forked, worker_count
from gpunet.grammar import grammar_for
from gpunet.model.fabric import Fabric, Switch
from gpunet.platforms import get_platform
from gpunet.progress import progress
from gpunet.render.canonical import canonical_json
from gpunet.render.manifest import digest
from gpunet.render.reuse import RenderReuse

# Package data (gpunet/templates/switch/), so a wheel renders exactly as a checkout does.
TEMPLATES_PACKAGE = ("gpunet", "templates/switch")
CONFIG_TEMPLATE = "config.j2"
SUMMARY_TEMPLATE = "summary.md.j2"


@dataclass(frozen=True)
class RenderedSwitch:
    name: str
    platform: str
    config: str  # exactly what the push sends (<switch>.cfg)
    summary: str  # human summary (<switch>.md)

    @property
    def config_digest(self) -> str:
        return digest(self.config)

    @property
    def summary_digest(self) -> str:
        return digest(self.summary)


@dataclass(frozen=True, slots=True)
class StagedSwitch:
    """A switch a worker printed into its piece's staging file, read back only when asked for: the
    parent never holds every switch's text at once (1.4 GB at 10,240 SONiC switches). Reads as a
    RenderedSwitch does (`config`, `summary` and their digests), with the same text."""

    name: str
    platform: str
    path: Path  # the piece's staging file: each switch's config then summary, UTF-8
    config_at: tuple[int, int]  # (byte offset, byte length) in `path`
    summary_at: tuple[int, int]
    config_digest: str  # digest(config), taken by the worker
    summary_digest: str

    @property
    def config(self) -> str:
        return _read_span(self.path, self.config_at)

    @property
    def summary(self) -> str:
        return _read_span(self.path, self.summary_at)


def _read_span(path: Path, span: tuple[int, int]) -> str:
    with path.open("rb") as staged:
        staged.seek(span[0])
        return staged.read(span[1]).decode()


# Below this many switches one process is faster: forking and sending the text back cost more.
PARALLEL_FROM_SWITCHES = 256
# Pieces per worker: small enough that one slow platform's switches do not leave a core idle.
PIECES_PER_PROCESS = 8


def render_fabric(
    fabric: Fabric, reuse: RenderReuse | None = None, jobs: int | None = None, staging: Path | None = None
) -> dict[str, RenderedSwitch | StagedSwitch]:
    """Every switch of the fabric, by name (sorted). With `reuse`, a switch whose inputs are those
    of the last render into that folder keeps its files from disk (see reuse.py). `jobs`: how many
    processes print (default: one per CPU from PARALLEL_FROM_SWITCHES switches on); the text is
    the same whatever the number. With `staging` (an empty folder that outlives the result), forked
    workers write the text there and send back StagedSwitches instead of the text itself."""
    names = sorted(fabric.switches)
    processes = render_processes(jobs, len(names))
    if processes == 1:
        return {
            name: render_switch(fabric, fabric.switches[name], reuse)
            for name in progress(names, "rendering: switch")
        }
    size = -(-len(names) // (processes * PIECES_PER_PROCESS))
    pieces = [names[start : start + size] for start in range(0, len(names), size)]
    printed: dict[str, tuple[RenderedSwitch | StagedSwitch, bytes | None]] = {}
    if staging is None:
        finished = run_forked((fabric, reuse), pieces, processes, _render_piece)
    else:
        finished = run_forked((fabric, reuse, staging), list(enumerate(pieces)), processes, _stage_piece)
    for _, piece in progress(finished, "rendering: group of switches", len(pieces)):
        printed.update(piece)
    rendered = {}
    for name in names:  # recorded in name order, as one process records them
        switch, key = printed[name]
        if reuse is not None:
            reuse.record(name, key, switch.config_digest, switch.summary_digest)
        rendered[name] = switch
    return rendered


def render_processes(jobs: int | None, switches: int) -> int:
    return worker_count(jobs, switches, worth_forking=switches >= PARALLEL_FROM_SWITCHES)


def _render_piece(
    inherited: tuple[Fabric, RenderReuse | None], names: list[str]
) -> dict[str, tuple[RenderedSwitch, bytes | None]]:
    """In a worker: these switches printed, with their reuse keys (recorded by the parent)."""
    fabric, reuse = inherited
    return {name: _print_switch(fabric, fabric.switches[name], reuse) for name in names}


def _stage_piece(
    inherited: tuple[Fabric, RenderReuse | None, Path], piece: tuple[int, list[str]]
) -> dict[str, tuple[StagedSwitch, bytes | None]]:
    """In a worker: these switches printed into one staging file, with their reuse keys."""
    fabric, reuse, staging = inherited
    index, names = piece
    path = staging / f"piece-{index:05d}"
    staged = {}
    offset = 0
    with path.open("wb") as out:
        spans = []
        for name in names:
            switch, key = _print_switch(fabric, fabric.switches[name], reuse)
            spans.clear()
            for text in (switch.config, switch.summary):
                data = text.encode()
                out.write(data)
                # digest(text), without encoding it a second time
                spans.append(((offset, len(data)), "sha256:" + hashlib.sha256(data).hexdigest()))
                offset += len(data)
            (config_at, config_digest), (summary_at, summary_digest) = spans
            printed = StagedSwitch(
                name, switch.platform, path, config_at, summary_at, config_digest, summary_digest
            )
            staged[name] = (printed, key)
    return staged


def render_switch(fabric: Fabric, switch: Switch, reuse: RenderReuse | None = None) -> RenderedSwitch:
    rendered, key = _print_switch(fabric, switch, reuse)
    if reuse is not None:
        reuse.record(switch.name, key, rendered.config_digest, rendered.summary_digest)
    return rendered


def _print_switch(
    fabric: Fabric, switch: Switch, reuse: RenderReuse | None
) -> tuple[RenderedSwitch, bytes | None]:
    """The switch's files (from the last render when its inputs are the same) and its reuse key."""
    structured = design_switch(fabric, switch)
    platform = get_platform(switch.platform)
    kind = grammar_for(platform.name).kind
    key = reuse.input_digest(structured, kind) if reuse is not None else None
    previous = reuse.previous(switch.name, key) if reuse is not None else None
    if previous is not None:
        config, summary = previous
    else:
        config = (
            _environment().get_template(f"{platform.template_folder}/{CONFIG_TEMPLATE}").render(structured)
        )
        if kind == "document":
            config = canonical_json(config)
        summary = _environment().get_template(SUMMARY_TEMPLATE).render(structured)
    return RenderedSwitch(name=switch.name, platform=platform.name, config=config, summary=summary), key


# Plain dicts' own attributes (items, keys, get, ...): only these can resolve as attributes.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja's `a.b` tries the attribute first and the item only after an AttributeError; the
    structured config is plain dicts, so on 2,560 switches that was 18 million raised exceptions.
    For a plain dict and a name that is not one of dict's attributes, the answer is the item (or
    Undefined), exactly as before, without the exception."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


def _with_commas(items: Iterable[Any]) -> Iterator[tuple[Any, str]]:
    """`{% for item, comma in items | commas %}`: each item with "," after it, the last with "": the
    JSON separators SONiC's templates write. Jinja's `loop.last` looks one item ahead through its
    LoopContext on every turn: half of printing a SONiC config (10,240 switches at 262,144 GPUs)."""
    listed = list(items)
    return zip(listed, [","] * (len(listed) - 1) + [""], strict=False)


@cache
def _environment() -> jinja2.Environment:
    environment = _Environment(
        loader=jinja2.PackageLoader(*TEMPLATES_PACKAGE),
        # The templates are package data that do not change while gpunet runs: without this every
        # get_template (four a switch) stats the file to see whether to compile it again.
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    environment.filters["commas"] = _with_commas
    return environment
