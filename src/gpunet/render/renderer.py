"""Print each switch's structured config through its platform's templates."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from gpunet.design import design_switch
from gpunet.grammar import grammar_for
from gpunet.model.fabric import Fabric, Switch
from gpunet.platforms import get_platform

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


def render_fabric(fabric: Fabric) -> dict[str, RenderedSwitch]:
    """Every switch of the fabric, by name (sorted)."""
    return {name: render_switch(fabric, fabric.switches[name]) for name in sorted(fabric.switches)}


def render_switch(fabric: Fabric, switch: Switch) -> RenderedSwitch:
    structured = design_switch(fabric, switch)
    platform = get_platform(switch.platform)
    config = _environment().get_template(f"{platform.template_folder}/{CONFIG_TEMPLATE}").render(structured)
    if grammar_for(platform.name).kind == "document":
        config = canonical_json(config)
    summary = _environment().get_template(SUMMARY_TEMPLATE).render(structured)
    return RenderedSwitch(name=switch.name, platform=platform.name, config=config, summary=summary)


def canonical_json(text: str) -> str:
    """One stable spelling of a JSON document, so unchanged content never shows up as a diff."""
    document: Any = json.loads(text)
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader(*TEMPLATES_PACKAGE),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
