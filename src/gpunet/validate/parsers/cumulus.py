"""NVIDIA Cumulus Linux NVUE `nv show qos roce`.

A section is a title line underlined with `=`. Sections the parser does not know (a newer
release's extra table) are listed under `unknown_tables` and their rows ignored, so they never
leak into the settings table or into another section.
"""

from __future__ import annotations

import json
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines
from gpunet.validate.parsers.tables import column_spans, is_rule

_SECTIONS = {
    "RoCE PCP/DSCP->SP mapping configurations": "dscp_to_switch_priority",
    "RoCE SP->TC mapping and ETS configurations": "switch_priority_to_tc",
    "RoCE pool config": "pools",
    "Exception List": "exceptions",
}


def parse_nv_show_qos_roce(text: str) -> dict[str, Any]:
    """{"operational": {...}, "applied": {...}, "description": {...}?, "settings": {...},
    "dscp_to_switch_priority": [...], ...}.

    The first table's columns are read by the header's names over the rule's dashed runs: `operational
    applied` (Cumulus 5.9+ docs), and `operational applied description` (Cumulus 5.x `nv show`
    tables with help text, CumulusNetworks/docs cumulus-linux-55 RoCE page), so a description never
    runs into the applied value. Nested keys are joined with dots (`pfc.pfc-priority`)."""
    if text.lstrip().startswith("{"):
        return _roce_json(text)
    lines = content_lines(text)
    first_rule = next((i for i, line in enumerate(lines) if is_rule(line)), None)
    if first_rule is None or first_rule == 0 or "applied" not in lines[first_rule - 1]:
        raise ParseError("no 'operational  applied' table: not `nv show qos roce` output")
    names = lines[first_rule - 1].split()
    spans = column_spans(lines[first_rule])
    if names[:2] != ["operational", "applied"] or len(spans) != len(names) + 1:
        raise ParseError(
            f"line {first_rule}: unknown `nv show qos roce` columns {' '.join(names)!r} (expected "
            "operational applied [description], over one dashed run each after the key's)"
        )
    result: dict[str, Any] = {name: {} for name in names}
    parent = ""
    index = first_rule + 1
    if index >= len(lines) or not lines[index].strip() or _is_title(lines, index):
        raise ParseError(
            f"line {first_rule}: the `nv show qos roce` table has a header but no rows (a cut capture)"
        )
    while index < len(lines) and lines[index].strip() and not _is_title(lines, index):
        line = lines[index]
        key = line[: spans[1][0]].strip()
        key = f"{parent}.{key}" if line.startswith("  ") and parent else key
        values = {name: line[start:end].strip() for name, (start, end) in zip(names, spans[1:], strict=True)}
        if not line.startswith(" ") and not any(values.values()):
            parent = key
        else:
            if not line.startswith(" "):
                parent = ""
            for name in names:
                result[name][key] = values[name] or None
        index += 1
    _read_sections(lines[index:], index + 1, result)
    # What the switch runs: the operational value where it shows one, else the applied one.
    result["settings"] = {
        key: result["operational"][key] or result["applied"][key] for key in result["applied"]
    }
    return result


def _is_title(lines: list[str], index: int) -> bool:
    """A section title: a line the next line underlines with `=`."""
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    return bool(lines[index].strip()) and bool(following) and set(following) == {"="}


def _read_sections(lines: list[str], first_line: int, result: dict[str, Any]) -> None:
    """The `=`-underlined sections: a header, a dashed rule, rows. Cells are read over the rule's
    dashed runs, so an empty cell (a switch priority no DSCP maps to) stays empty instead of
    shifting the next value into its column; the first run is the row's index, unnamed.

    NVUE fills a row's last cell (`-` where a pool has no traffic class): a row whose last cell is
    empty was cut; a known section other than the Exception List without rows was cut after its
    title or header. Each is an error naming the line (`first_line`: the number of lines[0])."""
    name: str | None = None
    header: list[str] = []
    spans: list[tuple[int, int]] = []
    title_line = 0
    result["unknown_tables"] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if _is_title(lines, index) or stripped in _SECTIONS:
            _refuse_empty_section(result, name, title_line)
            title_line = first_line + index
            name = _SECTIONS.get(stripped)
            if name is None:
                result["unknown_tables"].append(stripped)
            else:
                if name in result:
                    raise ParseError(f"section {stripped!r} appears twice (a duplicated capture)")
                result[name] = []
            header, spans = [], []
        elif name is None or not stripped or set(stripped) == {"="} or stripped == "No Data":
            continue
        elif is_rule(line):
            spans = column_spans(line) if header else spans
        elif not header:
            header = [column.replace("-", "_") for column in stripped.split()]
        elif len(spans) == len(header) + 1:
            cells = [line[start:end].strip() or None for start, end in spans[1:]]
            if cells[-1] is None:
                raise ParseError(
                    f"line {first_line + index}: a row of {_title_of(name)!r} ends before its "
                    f"{header[-1].replace('_', '-')!r} column (a cut capture)"
                )
            result[name].append(dict(zip(header, cells, strict=True)))
        else:  # no rule under the header (a hand-trimmed copy): whitespace-separated cells
            result[name].append(dict(zip(header, stripped.split()[1:], strict=False)))
    _refuse_empty_section(result, name, title_line)


def _title_of(name: str) -> str:
    return next(title for title, key in _SECTIONS.items() if key == name)


def _refuse_empty_section(result: dict[str, Any], name: str | None, title_line: int) -> None:
    """A known section that ended without a row (the Exception List may be empty)."""
    if name is not None and name != "exceptions" and not result[name]:
        raise ParseError(
            f"line {title_line}: section {_title_of(name)!r} has no rows (a cut or damaged capture)"
        )


# `nv show qos roce -o json`, by NVIDIA's NVUE OpenAPI spec for Cumulus Linux 5.3.0
# (`cue-show-schema-roce-roce`, ../shared/vendor-schemas/nvue/nvue-openapi-5.3.0.json): scalar
# properties and nested instances (pfc, congestion-control, trust, lldp-app-tlv) become the dotted
# `settings` the text table gives; the collections keyed by id become the sections' rows.
_JSON_COLLECTIONS = {
    "prio-map": "dscp_to_switch_priority",
    "tc-map": "switch_priority_to_tc",
    "pool-map": "pools",
    "exception-list": "exceptions",
}
_JSON_INSTANCES = ("pfc", "congestion-control", "trust", "lldp-app-tlv")


def _roce_json(text: str) -> dict[str, Any]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(
            f"nv show qos roce -o json: not JSON (a cut capture?): {error.msg} at line {error.lineno}"
        ) from None
    if not isinstance(document, dict) or ("mode" not in document and "pfc" not in document):
        raise ParseError("nv show qos roce -o json: no mode or pfc: not `nv show qos roce` JSON")
    settings: dict[str, Any] = {}
    result: dict[str, Any] = {"form": "json", "settings": settings, "unknown_tables": []}
    for key, value in document.items():
        if key in _JSON_COLLECTIONS:
            if not isinstance(value, dict) or not all(isinstance(row, dict) for row in value.values()):
                raise ParseError(f"nv show qos roce -o json: {key} is not a collection of objects")
            result[_JSON_COLLECTIONS[key]] = [
                {name.replace("-", "_"): _text(cell) for name, cell in row.items()} for row in value.values()
            ]
        elif key in _JSON_INSTANCES or isinstance(value, dict):
            if not isinstance(value, dict):
                raise ParseError(f"nv show qos roce -o json: {key} is not an object")
            for name, cell in value.items():
                if isinstance(cell, dict | list):
                    raise ParseError(f"nv show qos roce -o json: {key}.{name} is not a value")
                settings[f"{key}.{name}"] = _text(cell)
        elif isinstance(value, list):
            raise ParseError(f"nv show qos roce -o json: {key} is not a value")
        else:
            settings[key] = _text(value)
    return result


def _text(value: Any) -> str | None:
    """A value as the text table prints it (integers as digits); None for null or an empty
    string, as the text table's empty cell reads."""
    return None if value is None or value == "" else str(value)
