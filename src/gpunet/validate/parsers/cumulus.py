"""NVIDIA Cumulus Linux NVUE `nv show qos roce`.

A section is a title line underlined with `=`. Sections the parser does not know (a newer
release's extra table) are listed under `unknown_tables` and their rows ignored, so they never
leak into the settings table or into another section.
"""

from __future__ import annotations

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
    _read_sections(lines[index:], result)
    # What the switch runs: the operational value where it shows one, else the applied one.
    result["settings"] = {
        key: result["operational"][key] or result["applied"][key] for key in result["applied"]
    }
    return result


def _is_title(lines: list[str], index: int) -> bool:
    """A section title: a line the next line underlines with `=`."""
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    return bool(lines[index].strip()) and bool(following) and set(following) == {"="}


def _read_sections(lines: list[str], result: dict[str, Any]) -> None:
    name: str | None = None
    header: list[str] = []
    result["unknown_tables"] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if _is_title(lines, index) or stripped in _SECTIONS:
            name = _SECTIONS.get(stripped)
            if name is None:
                result["unknown_tables"].append(stripped)
            else:
                if name in result:
                    raise ParseError(f"section {stripped!r} appears twice (a duplicated capture)")
                result[name] = []
            header = []
        elif name is None or not stripped or set(stripped) == {"="} or is_rule(line) or stripped == "No Data":
            continue
        elif not header:
            header = [column.replace("-", "_") for column in stripped.split()]
        else:
            tokens = stripped.split()
            # Rows start with an index column the header has no name for.
            result[name].append(dict(zip(header, tokens[1:], strict=False)))
