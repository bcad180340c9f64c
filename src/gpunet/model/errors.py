"""One problem found in an inventory, and the error that carries a list of them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """A single finding: where it is, what is wrong, what was seen and what would be valid."""

    path: str
    message: str
    got: Any = None
    expected: Any = None

    def __str__(self) -> str:
        detail = []
        if self.got is not None:
            detail.append(f"got {_show(self.got)}")
        if self.expected is not None:
            detail.append(f"expected {self.expected}")
        suffix = f" ({', '.join(detail)})" if detail else ""
        return f"{self.path}: {self.message}{suffix}"

    def as_dict(self) -> dict[str, Any]:
        return {k: _jsonable(v) for k, v in asdict(self).items()}


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    return str(value)


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


class InventoryInvalidError(Exception):
    """The inventory did not pass its checks; `problems` lists every finding."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
