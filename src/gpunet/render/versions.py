"""Refuse a switch whose OS release lacks a statement its rendered config holds: each grammar source
may state the first release with its statements (`since` in src/gpunet/grammar/<platform>.yml)."""

from __future__ import annotations

from gpunet.grammar import grammar_for
from gpunet.grammar.versions import parse_version
from gpunet.model.errors import Problem
from gpunet.model.fabric import Fabric
from gpunet.render.renderer import RenderedSwitch, StagedSwitch


def os_version_problems(fabric: Fabric, rendered: dict[str, RenderedSwitch | StagedSwitch]) -> list[Problem]:
    problems = []
    for name, switch in sorted(fabric.switches.items()):
        if not switch.os_version or name not in rendered:
            continue
        grammar = grammar_for(switch.platform)
        version = parse_version(switch.platform, switch.os_version)
        for statement, since, source in grammar.newer_than(rendered[name].config, version):
            problems.append(
                Problem(
                    f"{name}.gpunet_os_version",
                    f"lacks a statement the intent needs: {statement!r} exists from {switch.platform} "
                    f"{since} (src/gpunet/grammar/{switch.platform}.yml source {source})",
                    switch.os_version,
                    f">= {since}",
                )
            )
    return problems
