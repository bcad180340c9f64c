"""The Jinja environment of the report sections that are printed from templates
(templates/report/): every `{{ value }}` goes through the format's escaping (`finalize`), so text
read from artifacts can never become markup, whatever the template prints."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import jinja2

TEMPLATES = ("gpunet", "templates/report")


@cache
def _environment(escape: Callable[[str], str]) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader(*TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=lambda value: escape(str(value)),
    )


def render_section(template: str, escape: Callable[[str], str], **values: Any) -> str:
    return _environment(escape).get_template(template).render(**values)
