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
    lines = content_lines(text)
    header_index = next(
        (i for i, line in enumerate(lines) if line.split()[:1] == ["GPU0"] and not _is_row(line)), None
    )
    if header_index is None:
        raise ParseError("no 'GPU0 GPU1 ...' header line found: not `nvidia-smi topo -m` output")
    header = lines[header_index]
    devices = [token for token in header.split() if _DEVICE.match(token)]
    extra_columns = [name for name in _AFFINITY_COLUMNS if name in header]
    matrix: dict[str, dict[str, str]] = {}
    affinity: dict[str, dict[str, str]] = {}
    legend: dict[str, str] = {}
    for line in lines[header_index + 1 :]:
        if match := _LEGEND.match(line):
            legend[match["alias"]] = match["name"]
            continue
        tokens = line.split()
        if len(tokens) <= len(devices) or tokens[0] not in devices:
            continue
        relations = tokens[1 : 1 + len(devices)]
        if not all(_RELATION.match(r) for r in relations):
            continue
        matrix[tokens[0]] = dict(zip(devices, relations, strict=True))
        affinity[tokens[0]] = dict(zip(extra_columns, tokens[1 + len(devices) :], strict=False))
    if not matrix:
        raise ParseError("`nvidia-smi topo -m` header found but no matrix rows")
    return {
        "gpus": [d for d in devices if d.startswith("GPU")],
        "nics": [legend.get(d, d) for d in devices if not d.startswith("GPU")],
        "nic_legend": legend,
        "matrix": matrix,
        "affinity": affinity,
    }


def _is_row(line: str) -> bool:
    tokens = line.split()
    return len(tokens) > 1 and bool(_RELATION.match(tokens[1]))


def parse_nvidia_smi_query(text: str) -> dict[str, Any]:
    attached: int | None = None
    gpus: list[dict[str, str]] = []
    # Every line acted on holds one of these (a GPU block starts its line): 17 of a host's 1,700.
    for line in lines_holding(text, ("Attached GPUs", "\nGPU ", "Product Name")):
        if match := _ATTACHED.match(line.strip()):
            attached = int(match["count"])
        elif match := _GPU_BLOCK.match(line):
            gpus.append({"bus_id": match["bus"]})
        elif (match := _PRODUCT.match(line)) and gpus and "product_name" not in gpus[-1]:
            gpus[-1]["product_name"] = match["name"].strip()
    if attached is None:
        raise ParseError("no 'Attached GPUs' line found: not `nvidia-smi -q` output, or no driver loaded")
    return {"attached_gpus": attached, "gpus": gpus}
