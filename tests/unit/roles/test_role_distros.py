"""Every role says the distributions it supports as the data says them: the claimed rows of
src/gpunet/hosts/nvidia_releases.yml (read when the test runs, so a distribution added there is
expected here too), in each README's Requirements and in meta/main.yml's galaxy_info platforms."""

from __future__ import annotations

import re

import pytest
import yaml

from gpunet.hosts.published_versions import claimed_folders
from tests.conftest import REPO_ROOT

ROLES = sorted(path.parent.parent.name for path in (REPO_ROOT / "roles").glob("*/meta/main.yml"))

# NVIDIA repository folder -> how a README names it, and Galaxy's platform name and version
# (ansible-lint's meta schema lists the versions Galaxy knows). Codenames: Ubuntu's release list
# (https://wiki.ubuntu.com/Releases: 22.04 Jammy, 24.04 Noble, 26.04 Resolute) and Debian's
# (https://www.debian.org/releases/: 12 bookworm, 13 trixie); EL is Galaxy's name for RHEL and its
# rebuilds (Rocky, Alma), which NVIDIA's rhel9/rhel10 folders serve.
NAMES: dict[str, tuple[str, str, str, str]] = {
    "ubuntu2204": ("Ubuntu", "22.04", "Ubuntu", "jammy"),
    "ubuntu2404": ("Ubuntu", "24.04", "Ubuntu", "noble"),
    "ubuntu2604": ("Ubuntu", "26.04", "Ubuntu", "resolute"),
    "debian12": ("Debian", "12", "Debian", "bookworm"),
    "debian13": ("Debian", "13", "Debian", "trixie"),
    "rhel9": ("RHEL/Rocky", "9", "EL", "9"),
    "rhel10": ("RHEL/Rocky", "10", "EL", "10"),
}
FAMILY_ORDER = ("Ubuntu", "Debian", "RHEL/Rocky")

# Roles whose host is the controller (they talk to switches over SSH from there): Galaxy's
# GenericLinux, and no distribution statement.
CONTROLLER_ROLES = {"switch_qos", "verify_switch"}

# Roles other engineers are changing right now (issue 28), whose README and meta are theirs to bring
# in line; strict, so the test fails once they agree and the role must leave this list.
PENDING: dict[str, str] = {}

# "Ubuntu 22.04/24.04", "Debian 12", "RHEL/Rocky 9/10", also a lone "RHEL 8" or "Rocky 9".
MENTION = re.compile(
    r"\b(Ubuntu|Debian|RHEL/Rocky|RHEL|Rocky|CentOS|Alma(?:Linux)?)\s+(\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)*)"
)
STATEMENT = "Distributions:"


def claimed() -> list[str]:
    folders = claimed_folders()
    unnamed = [folder for folder in folders if folder not in NAMES]
    assert not unnamed, f"claimed folders without README/Galaxy names in NAMES here: {unnamed}"
    return folders


def expected_mentions() -> set[tuple[str, str]]:
    return {(NAMES[folder][0], NAMES[folder][1]) for folder in claimed()}


def expected_statement() -> str:
    """The statement written the way the READMEs write it, for the failure message."""
    parts = []
    for family in FAMILY_ORDER:
        versions = [NAMES[f][1] for f in claimed() if NAMES[f][0] == family]
        if versions:
            parts.append(f"{family} {'/'.join(versions)}")
    return f"{STATEMENT} {', '.join(parts)}."


def mentions(text: str) -> set[tuple[str, str]]:
    """(family, version) for every distribution named with versions in `text`."""
    return {
        (family, version) for family, versions in MENTION.findall(text) for version in versions.split("/")
    }


def requirements(role: str) -> str:
    readme = (REPO_ROOT / "roles" / role / "README.md").read_text()
    match = re.search(r"^## Requirements\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
    assert match, f"roles/{role}/README.md has no Requirements section"
    return match.group(1)


def host_role(role: str) -> bool:
    return role not in CONTROLLER_ROLES


def pending(role: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(reason=PENDING[role], strict=True)] if role in PENDING else []


@pytest.mark.parametrize("role", [pytest.param(r, marks=pending(r)) for r in ROLES if host_role(r)])
def test_each_host_roles_readme_states_the_claimed_distributions(role: str) -> None:
    paragraphs = [p for p in requirements(role).strip().split("\n\n") if p.startswith(STATEMENT)]
    assert len(paragraphs) == 1, (
        f"roles/{role}/README.md Requirements needs one paragraph: {expected_statement()}"
    )
    assert mentions(paragraphs[0]) == expected_mentions(), (
        f"roles/{role}/README.md says {paragraphs[0]!r}; the claim is: {expected_statement()}"
    )


@pytest.mark.parametrize("role", ROLES)
def test_no_readme_names_a_distribution_outside_the_claimed_ones(role: str) -> None:
    """Any other sentence of Requirements (a package's name on some of them) stays within the claim."""
    stray = mentions(requirements(role)) - expected_mentions()
    assert not stray, f"roles/{role}/README.md Requirements names {sorted(stray)}; {expected_statement()}"


@pytest.mark.parametrize("role", [pytest.param(r, marks=pending(r)) for r in ROLES])
def test_galaxy_platforms_are_the_claimed_distributions(role: str) -> None:
    meta = yaml.safe_load((REPO_ROOT / "roles" / role / "meta/main.yml").read_text())
    platforms = {
        (platform["name"], str(version))
        for platform in meta["galaxy_info"].get("platforms", [])
        for version in platform["versions"]
    }
    if host_role(role):
        expected = {(NAMES[folder][2], NAMES[folder][3]) for folder in claimed()}
    else:
        expected = {("GenericLinux", "all")}
    assert platforms == expected, (
        f"roles/{role}/meta/main.yml platforms: missing {sorted(expected - platforms)}, "
        f"not claimed {sorted(platforms - expected)}"
    )


def test_the_names_table_reads_the_statement_it_writes() -> None:
    assert mentions(expected_statement()) == expected_mentions()
    assert mentions("Ubuntu 22.04 and RHEL/Rocky 9 have it as python3.11") == {
        ("Ubuntu", "22.04"),
        ("RHEL/Rocky", "9"),
    }
    assert mentions("Debian 12, Ubuntu 20.04/22.04 or RHEL 8") == {
        ("Debian", "12"), ("Ubuntu", "20.04"), ("Ubuntu", "22.04"), ("RHEL", "8")
    }  # fmt: skip
