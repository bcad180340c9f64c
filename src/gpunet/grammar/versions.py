"""OS version strings per platform, as each vendor writes its releases, made comparable.

A grammar source may state the first release that has its statements (`since` in <platform>.yml); a
switch whose `gpunet_os_version` is older lacks them, and the render refuses it (gpunet.render.pipeline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class VersionForm:
    pattern: re.Pattern[str]
    example: str


# Release forms: NVIDIA Cumulus Linux 5.10.1; SONiC release branches 202405 (and 202405.1); Arista EOS
# 4.32.2F; Cisco NX-OS 10.4(3)F or 9.3(10); Juniper 24.4R1, 23.4R2-S3, 24.4R1-EVO.
FORMS: dict[str, VersionForm] = {
    "cumulus": VersionForm(re.compile(r"(\d+)\.(\d+)\.(\d+)"), "5.10.1"),
    "sonic": VersionForm(re.compile(r"(\d{6})(?:\.(\d+))?"), "202405"),
    "eos": VersionForm(re.compile(r"(\d+)\.(\d+)\.(\d+)(?:\.(\d+))?[A-Z]*"), "4.32.2F"),
    "nxos": VersionForm(re.compile(r"(\d+)\.(\d+)\((\d+)\)[A-Z]*\d*"), "10.4(3)F"),
    "junos": VersionForm(re.compile(r"(\d+)\.(\d+)R(\d+)(?:-S(\d+))?(?:-EVO)?"), "24.4R1"),
}


class VersionError(ValueError):
    """A version string that is not in the platform's release form."""


def parse_version(platform: str, text: str) -> tuple[int, ...]:
    form = FORMS[platform]
    match = form.pattern.fullmatch(text)
    if match is None:
        raise VersionError(f"not a {platform} release (e.g. {form.example})")
    return tuple(int(part) for part in match.groups() if part is not None)
