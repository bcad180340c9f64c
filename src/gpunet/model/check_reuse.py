"""A passed inventory check, kept for exactly the inputs that passed it (the preflight plugin).

The preflight stage checks the whole inventory on every playbook run; at 8,192 hosts that is the
model build with its schema and cross-checks, about 9 s of CPU, for an answer that only changes
when the inventory or gpunet does. So a passing check records the fabric's summary under the
inventory's key (gpunet.model.inventory_key: the model's variables after templating and vault
decryption, and every file of the gpunet package), and the next check with the same key answers
from it. A check that finds problems is never recorded: it always runs. Only the summary is
stored (the fabric's name, counts and platform names), never an inventory value. Kept beside the
parsed files, so `GPUNET_PARSE_CACHE=off` turns it off and `=DIR` moves it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpunet.cachedir import cache_file, keep_newest, read_records, write_records
from gpunet.model.build import RawInventory
from gpunet.model.check import CheckResult
from gpunet.model.inventory_key import inventory_key
from gpunet.model.parse_cache import CACHE_ENV

FORMAT = "gpunet-check-record-1"
RECORD_PREFIX = "checked-"
KEEP_RECORDS = 8  # inventory versions kept


@dataclass(frozen=True)
class PassedCheck:
    message: str  # Fabric.summary()
    summary: dict[str, Any]  # CheckResult.as_dict()["summary"]


class CheckReuse:
    """The record of a passed check of one exact inventory, if there is one."""

    def __init__(self, raw: RawInventory) -> None:
        key = inventory_key(raw, FORMAT.encode())
        self.path = None if key is None else cache_file("inventory", CACHE_ENV, key.hex(), RECORD_PREFIX)

    def passed(self) -> PassedCheck | None:
        if self.path is None:
            return None
        stored = read_records(self.path, FORMAT)
        message, summary = stored.get("message"), stored.get("summary")
        if not isinstance(message, str) or not isinstance(summary, dict):
            return None
        return PassedCheck(message=message, summary=summary)

    def record(self, result: CheckResult) -> None:
        """Keep `result` when it passed; a failed check is never kept."""
        if self.path is None or not result.ok or result.fabric is None:
            return
        write_records(
            self.path,
            FORMAT,
            {"message": result.fabric.summary(), "summary": result.as_dict()["summary"]},
        )
        keep_newest(self.path, RECORD_PREFIX, KEEP_RECORDS)
