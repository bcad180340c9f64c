"""`nvidia-smi topo -m` (GPU/NIC connection matrix) and `nvidia-smi -q` (GPU inventory)."""

from __future__ import annotations

import re
from typing import Any

from gpunet.validate.parsers.base import ParseError, content_lines, lines_holding

_DEVICE = re.compile(r"^(GPU\d+|NIC\d+|mlx\d+_\d+|[a-z]+\d+(_\d+)?)$")
_RELATION = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")
_AFFINITY_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
_LEGEND = re.compile(r"^\s*(?P<alias>NIC\d+):\s*(?P<name>\S+)\s*$")
_ATTACHED = re.compile(r"^Attached GPUs\s*:\s*(?P<count>\d+)")
_GPU_BLOCK = re.compile(r"^GPU (?P<bus>[0-9A-Fa-f:.]+)\s*$")
_PRODUCT = re.compile(r"^\s+Product Name\s*:\s*(?P<name>.+)$")


def parse_nvidia_smi_topo(text: str) -> dict[str, Any]:
    """The matrix as nvidia-smi prints it: a header of devices (GPUn, NICn) and affinity columns,
    a row per device (GPU rows end with the affinity values, NIC rows do not), then the legends.

    Read completely or refused, naming the line: every device of the header has one row whose
    relations are known words with `X` on the diagonal, the matrix is symmetric, each affinity
    value has its column's form (`0-51,104-155`, `0`, `N/A`), and a NIC legend matches the
    header's NIC columns. The header holds only device names and the affinity column names; a row
    of a device the header does not name, or a NIC the legend lists twice, is an error."""
    lines = content_lines(text)
    header_index = next(
        (i for i, line in enumerate(lines) if line.split()[:1] == ["GPU0"] and not _is_row(line)), None
    )
    if header_index is None:
        raise ParseError("no 'GPU0 GPU1 ...' header line found: not `nvidia-smi topo -m` output")
    header = lines[header_index]
    devices = [token for token in header.split() if _DEVICE.match(token)]
    extra_columns = [name for name in _AFFINITY_COLUMNS if name in header]
    unknown = [
        token
        for token in _without(header, extra_columns).split()
        if not _DEVICE.match(token) or token.startswith(("CPU", "NUMA"))
    ]
    if unknown or len(set(devices)) != len(devices):
        what = f"unknown column {unknown[0]!r}" if unknown else "a device named twice"
        raise ParseError(
            f"line {header_index + 1}: the matrix header has {what} (expected GPUn/NICn device names, then "
            f"{', '.join(_AFFINITY_COLUMNS)}: a garbled header)"
        )
    legend_started = False
    matrix: dict[str, dict[str, str]] = {}
    affinity: dict[str, dict[str, str]] = {}
    legend: dict[str, str] = {}
    legend_line = 0
    for number_, line in enumerate(lines[header_index + 1 :], header_index + 2):
        if match := _LEGEND.match(line):
            if match["alias"] in legend:
                raise ParseError(
                    f"line {number_}: the NIC legend lists {match['alias']} twice ({legend[match['alias']]}, "
                    f"{match['name']}): a garbled legend"
                )
            legend[match["alias"]] = match["name"]
            legend_line = legend_line or number_
            continue
        tokens = line.split()
        legend_started = legend_started or tokens[:1] == ["Legend:"]
        stray = tokens and tokens[0] not in devices and _DEVICE.match(tokens[0])
        if stray and (not legend_started or _is_row(line)):
            raise ParseError(
                f"line {number_}: a row for {tokens[0]}, which the matrix header (line {header_index + 1}) "
                f"does not name: a cut header or two matrices in one capture"
            )
        if not tokens or tokens[0] not in devices:
            continue
        device = tokens[0]
        relations = tokens[1 : 1 + len(devices)]
        values = tokens[1 + len(devices) :]
        wanted = len(extra_columns) if device.startswith("GPU") else 0
        if (
            device in matrix
            or len(relations) != len(devices)
            or not all(_RELATION.match(r) for r in relations)
            or len(values) != wanted
            or not all(_AFFINITY_VALUE[name].match(v) for name, v in zip(extra_columns, values, strict=False))
        ):
            what = f" then {', '.join(extra_columns)}" if wanted else ""
            raise ParseError(
                f"line {number_}: the {device} row: expected {len(devices)} relations (X, NV#, PIX, PXB, "
                f"PHB, NODE, SYS){what}, found {' '.join(tokens[1:])!r} (a cut or garbled matrix)"
            )
        matrix[device] = dict(zip(devices, relations, strict=True))
        affinity[device] = dict(zip(extra_columns, values, strict=False))  # NIC rows have none
    _refuse_garbled_matrix(devices, matrix, legend, legend_line)
    return {
        "gpus": [d for d in devices if d.startswith("GPU")],
        "nics": [legend.get(d, d) for d in devices if not d.startswith("GPU")],
        "nic_legend": legend,
        "matrix": matrix,
        "affinity": affinity,
    }


# nvidia-smi's affinity columns: CPU lists (`0-51,104-155`), NUMA node lists, N/A where unknown.
_CPU_LIST = r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*"
_AFFINITY_VALUE = {
    "CPU Affinity": re.compile(rf"^(?:{_CPU_LIST}|N/A)$"),
    "NUMA Affinity": re.compile(rf"^(?:{_CPU_LIST}|N/A)$"),
    "GPU NUMA ID": re.compile(r"^(?:\d+|N/A)$"),
}


def _refuse_garbled_matrix(
    devices: list[str], matrix: dict[str, dict[str, str]], legend: dict[str, str], legend_line: int
) -> None:
    missing = [device for device in devices if device not in matrix]
    if missing:
        raise ParseError(
            f"`nvidia-smi topo -m` header names {', '.join(missing)} but the matrix has no row for "
            f"{'it' if len(missing) == 1 else 'them'} (a cut or garbled matrix)"
        )
    for device in devices:
        if matrix[device][device] != "X":
            raise ParseError(f"the {device} row has {matrix[device][device]!r}, not X, on the diagonal")
        for other in devices:
            if matrix[device][other] != matrix[other][device]:
                raise ParseError(
                    f"the matrix is not symmetric: {device}->{other} {matrix[device][other]}, "
                    f"{other}->{device} {matrix[other][device]} (a garbled matrix)"
                )
    nic_columns = [device for device in devices if device.startswith("NIC")]
    if legend and sorted(legend) != sorted(nic_columns):
        raise ParseError(
            f"line {legend_line}: the NIC legend lists {', '.join(sorted(legend))} but the matrix header "
            f"has {', '.join(nic_columns) or 'no NIC column'} (a garbled matrix)"
        )


def _without(header: str, names: list[str]) -> str:
    for name in names:
        header = header.replace(name, " ")
    return header


def _is_row(line: str) -> bool:
    tokens = line.split()
    return len(tokens) > 1 and bool(_RELATION.match(tokens[1]))


def parse_nvidia_smi_query(text: str) -> dict[str, Any]:
    """{"attached_gpus": N, "gpus": [{bus_id, product_name}]}.

    nvidia-smi -q (without -i) prints `Attached GPUs : N` before the GPU blocks, then one
    `GPU <bus id>` block per attached GPU (NVIDIA's nvidia-smi(1) -q; the `==============NVSMI
    LOG==============` layout of public captures): a capture with fewer or more blocks than that
    count was cut (or selected some GPUs with -i), and one that lists a bus id twice was printed
    twice; both are errors, so the count is never read from a capture that shows other GPUs."""
    attached: int | None = None
    gpus: list[dict[str, str]] = []
    # Every line acted on holds one of these (a GPU block starts its line): 17 of a host's 1,700.
    for line in lines_holding(text, ("Attached GPUs", "\nGPU ", "Product Name")):
        if match := _ATTACHED.match(line.strip()):
            if attached is not None:
                raise ParseError("a second 'Attached GPUs' line (duplicated capture)")
            attached = int(match["count"])
        elif match := _GPU_BLOCK.match(line):
            if any(gpu["bus_id"] == match["bus"] for gpu in gpus):
                raise ParseError(f"GPU {match['bus']} listed twice (duplicated capture)")
            gpus.append({"bus_id": match["bus"]})
        elif (match := _PRODUCT.match(line)) and gpus and "product_name" not in gpus[-1]:
            gpus[-1]["product_name"] = match["name"].strip()
    if attached is None:
        raise ParseError("no 'Attached GPUs' line found: not `nvidia-smi -q` output, or no driver loaded")
    if len(gpus) != attached:
        raise ParseError(
            f"'Attached GPUs : {attached}' but {len(gpus)} 'GPU <bus id>' block"
            f"{'' if len(gpus) == 1 else 's'} (a cut capture, or nvidia-smi -q -i selected some GPUs)"
        )
    return {"attached_gpus": attached, "gpus": gpus}
