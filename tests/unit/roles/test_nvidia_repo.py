"""nvidia_repo per distro: the repository URL, its key, the sources files and the RHEL prerequisites,
rendered from the role's own vars, tasks and templates with Ansible's templar, against NVIDIA's facts.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpunet.hosts.apt_sources import apt_components, release_mirror
from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import VENDOR_FACTS, facts
from tests.unit.roles.templar import render_role_template, render_value, role_defaults, role_vars, trusted

ROLE = REPO_ROOT / "roles/nvidia_repo"
ARCHES = {"x86_64": "x86_64", "aarch64": "sbsa"}  # NVIDIA's folder for Arm servers is sbsa


def url_task() -> dict[str, Any]:
    tasks = yaml.safe_load((ROLE / "tasks/main.yml").read_text())
    block = next(task for task in tasks if "block" in task)["block"]
    return next(task for task in block if task["name"] == "Work out the repository and key URLs")


def variables(distro: str, arch: str = "x86_64", **overrides: Any) -> dict[str, Any]:
    host_facts = facts(distro, arch)
    values = role_defaults(ROLE) | role_vars(ROLE, host_facts["os_family"])
    values |= {"ansible_facts": host_facts, "ansible_managed": "Ansible managed"} | overrides
    task = url_task()
    scope = values | trusted(task.get("vars", {}))
    for name, expression in task["ansible.builtin.set_fact"].items():
        values[name] = render_value(expression, scope)
    return values


CASES = [(distro, arch) for distro in VENDOR_FACTS for arch in ARCHES]


@pytest.mark.parametrize(("distro", "arch"), CASES)
def test_repository_url_and_key_per_distro(distro: str, arch: str) -> None:
    want = VENDOR_FACTS[distro]
    values = variables(distro, arch)
    base = f"https://developer.download.nvidia.com/compute/cuda/repos/{want['folder']}/{ARCHES[arch]}/"
    assert values["nvidia_repo_url"].strip() == base, want["source"]
    assert values["nvidia_repo_key_url"].strip() == base + want["key"], want["source"]


@pytest.mark.parametrize("distro", [d for d in VENDOR_FACTS if not d.startswith(("rhel", "rocky"))])
def test_apt_sources_file_trusts_only_the_repository_key(distro: str) -> None:
    values = variables(distro)
    text = render_role_template(ROLE / "templates/gpunet-nvidia.sources.j2", values)
    entry = dict(
        line.split(": ", 1) for line in text.splitlines() if ": " in line and not line.startswith("#")
    )
    assert entry == {
        "Types": "deb",
        "URIs": values["nvidia_repo_url"].strip(),
        "Suites": "/",
        "Signed-By": "/etc/apt/keyrings/gpunet-nvidia.asc",
    }
    assert (
        render_value(values["nvidia_repo_os_required_components"], values)
        == VENDOR_FACTS[distro]["components"]
    )


def test_debian_components_file_adds_contrib_for_the_release() -> None:
    values = variables("debian12") | {
        "nvidia_repo_missing_components": ["contrib"],
        "nvidia_repo_components_mirror": "http://mirror.example.net/debian",
    }
    text = render_role_template(ROLE / "templates/gpunet-debian-components.sources.j2", values)
    assert "Suites: bookworm bookworm-updates" in text
    assert "URIs: http://mirror.example.net/debian" in text
    assert apt_components(text) == ["contrib"]


@pytest.mark.parametrize("distro", ["rhel9", "rocky9", "rhel10", "rocky10"])
def test_rhel_family_gets_epel_and_crb(distro: str) -> None:
    want = VENDOR_FACTS[distro]
    values = variables(distro)
    assert render_value(values["nvidia_repo_os_epel_package"], values).strip() == want["epel"], want["source"]
    assert render_value(values["nvidia_repo_os_crb_repo_id"], values).strip() == want["crb"], want["source"]
    command = render_value(values["nvidia_repo_os_crb_command"], values)
    assert want["crb"] in command


def test_a_mirror_uses_the_operators_key() -> None:
    values = variables(
        "rocky9",
        nvidia_repo_source="mirror",
        nvidia_repo_mirror_url="https://mirror.example.net/cuda/rhel9/x86_64/",
        nvidia_repo_mirror_key_url="https://mirror.example.net/cuda/key.pub",
    )
    assert values["nvidia_repo_url"].strip() == "https://mirror.example.net/cuda/rhel9/x86_64/"
    assert values["nvidia_repo_key_url"].strip() == "https://mirror.example.net/cuda/key.pub"


# What hosts' sources say (one-line with options, deb822, comments) -> the components enabled.
SOURCES_CASES = [
    ("deb http://deb.debian.org/debian bookworm main\n", ["main"]),
    (
        "deb [arch=amd64 signed-by=/k.gpg] http://deb.debian.org/debian bookworm main contrib",
        ["main", "contrib"],
    ),
    (
        "# deb http://x bookworm contrib\ndeb http://x bookworm main non-free-firmware\n",
        ["main", "non-free-firmware"],
    ),
    (
        "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main contrib\n",
        ["main", "contrib"],
    ),
    ("deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] https://x/repos/debian12/x86_64/ /\n", []),
]


@pytest.mark.parametrize(("text", "expected"), SOURCES_CASES)
def test_apt_components(text: str, expected: list[str]) -> None:
    assert apt_components(text) == expected


@pytest.mark.parametrize(
    ("text", "mirror"),
    [
        ("deb http://ftp.de.debian.org/debian bookworm main\ndeb http://sec.example bookworm-security main\n",
         "http://ftp.de.debian.org/debian"),
        ("Types: deb\nURIs: http://m.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n",
         "http://m.example/debian"),
        ("Types: deb\nURIs: http://off.example\nSuites: bookworm\nEnabled: no\n", ""),
        ("deb http://archive.ubuntu.com/ubuntu noble main\n", ""),
    ],
)  # fmt: skip
def test_release_mirror_is_taken_from_the_hosts_sources(text: str, mirror: str) -> None:
    assert release_mirror(text, "bookworm") == mirror
