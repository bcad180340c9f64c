"""Filters gpunet.fabric.fabric_settings, nccl_environment, local_port_range, cidrs_by_family, ...

Used by the host roles; thin wrappers over gpunet.hosts.settings, so roles and tests share one implementation.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from ansible.errors import AnsibleError, AnsibleFilterError
from ansible_collections.gpunet.fabric.plugins.plugin_utils.gpunet_required import guarded_filters

try:
    from gpunet.hosts import (
        apt_sources,
        driver_boot,
        firewall,
        lldpd,
        nccl_tests,
        published_versions,
        settings,
    )
    from gpunet.model.plain import to_plain
    from gpunet.model.play_inventory import VAULT_HOW, is_missing_vault_secret
except ImportError as error:  # no gpunet here: the plugin loads, its first use says so
    GPUNET_IMPORT_ERROR: ImportError | None = error
else:
    GPUNET_IMPORT_ERROR = None


def fabric_settings(fabric_value: Any) -> dict[str, Any]:
    return settings.fabric_settings(to_plain(fabric_value))


def nccl_environment(
    fabric_value: Any,
    nics: Any,
    socket_ifname: str = "",
    gid_index: int | str | None = None,
    extra: Any = None,
    port: int = 1,
) -> dict[str, str]:
    return settings.nccl_environment(
        to_plain(fabric_value),
        to_plain(nics or []),
        socket_ifname=str(socket_ifname or ""),
        gid_index=None if gid_index in (None, "") else int(gid_index),
        port=int(port),
        extra=to_plain(extra or {}),
    )


def nic_ets(fabric_value: Any) -> dict[str, Any]:
    return settings.nic_ets(to_plain(fabric_value))


def nic_cable_lengths(nics: Any, fabric_value: Any, hostvars: Any) -> dict[str, int]:
    """Reads only the gpunet_ports of the leaves the NICs name (hostvars templates per host, on access)."""
    plain_nics = to_plain(nics or [])
    switch_ports = {}
    for switch in sorted({str(nic.get("switch", "")) for nic in plain_nics}):
        if switch and switch in hostvars:
            try:
                switch_ports[switch] = to_plain(hostvars[switch].get("gpunet_ports") or [])
            except AnsibleError as error:  # Ansible's generic "no vault secrets found" names nothing
                if not is_missing_vault_secret(error):
                    raise
                raise AnsibleFilterError(
                    f"no vault password for {switch}'s vault-encrypted variables, which reading its "
                    f"gpunet_ports (the NICs' cable lengths) loads: {VAULT_HOW}"
                ) from error
    return settings.nic_cable_lengths(to_plain(fabric_value), plain_nics, switch_ports)


def lldpd_interface_pattern(nics: Any) -> str:
    try:
        return lldpd.interface_pattern(to_plain(nics or []))
    except ValueError as error:
        raise AnsibleFilterError(str(error)) from error


def local_port_range(fabric_value: Any) -> str:
    return settings.local_port_range(to_plain(fabric_value))


def interface_with_address(facts: Any, address: Any) -> str:
    return settings.interface_with_address(to_plain(facts or {}), str(address or ""))


def cidrs_by_family(cidrs: Any) -> dict[str, list[str]]:
    return settings.cidrs_by_family(to_plain(cidrs or []))


def firewall_openings(openings: Any) -> list[dict[str, Any]]:
    return firewall.openings_by_family(to_plain(openings or []))


def nvcc_gencode(cuda_version: Any) -> str:
    return nccl_tests.nvcc_gencode(str(cuda_version))


def nccl_tests_make_argv(
    build_dir: Any, cuda_home: Any, nccl_home: Any, jobs: Any, mpi_home: Any = "", gencode: Any = ""
) -> list[str]:
    return nccl_tests.make_argv(
        build_dir=str(build_dir),
        cuda_home=str(cuda_home),
        nccl_home=str(nccl_home),
        jobs=int(jobs),
        mpi_home=str(mpi_home or ""),
        gencode=str(gencode or ""),
    )


def nccl_conf_variables(text: Any) -> dict[str, str]:
    return nccl_tests.nccl_conf_variables(str(text or ""))


def nccl_test_host(host_vars: Any) -> dict[str, Any]:
    plain = {
        key: to_plain(host_vars[key])
        for key in ("gpunet_gpus", "ansible_host", "inventory_hostname")
        if key in host_vars
    }
    return nccl_tests.test_host(plain)


def nccl_verify_jobs(
    hosts: Any,
    me: Any,
    launcher: Any,
    binary: Any,
    args: Any,
    nccl_env: Any = None,
    mpi_port_range: Any = (46000, 46999),
    ssh_key: Any = "",
    binding: Any = "numa",
    mpirun_extra: Any = (),
    mpi_home: Any = "",
    as_root: Any = False,
) -> list[dict[str, Any]]:
    return nccl_tests.verify_jobs(
        to_plain(hosts),
        str(me),
        str(launcher),
        str(binary),
        [str(arg) for arg in to_plain(args or [])],
        nccl_env={str(k): str(v) for k, v in to_plain(nccl_env or {}).items()},
        mpi_port_range=[int(port) for port in to_plain(mpi_port_range)],
        ssh_key=str(ssh_key or ""),
        binding=str(binding),
        mpirun_extra=[str(arg) for arg in to_plain(mpirun_extra or [])],
        mpi_home=str(mpi_home or ""),
        as_root=bool(as_root),
    )


def nccl_shared_variables(slurped: Any) -> dict[str, str]:
    """Settings every host's /etc/nccl.conf agrees on, from each host's slurp result (content base64)."""
    texts = []
    for result in to_plain(slurped or []):
        content = (result or {}).get("content", "") if isinstance(result, dict) else ""
        texts.append(base64.b64decode(content).decode("utf-8", "replace") if content else "")
    return nccl_tests.shared_nccl_variables([nccl_tests.nccl_conf_variables(text) for text in texts])


def apt_components(text: Any) -> list[str]:
    return apt_sources.apt_components(str(text or ""))


def apt_release_mirror(text: Any, release: Any) -> str:
    return apt_sources.release_mirror(str(text or ""), str(release))


def persistenced_exec_start(unit_text: Any) -> str:
    return settings.persistenced_exec_start(str(unit_text or ""))


def driver_boot_decision(probe: Any) -> dict[str, Any]:
    return driver_boot.boot_decision(str(probe or ""))


def cuda_published_problem(folder: Any, version: Any) -> str:
    return published_versions.cuda_published_problem(str(folder).strip(), str(version))


def cuda_driver_problem(cuda_version: Any, branch: Any) -> str:
    return published_versions.cuda_driver_problem(str(cuda_version), str(branch))


def driver_branch_problem(folder: Any, branch: Any, supported: Any = ()) -> str:
    return published_versions.driver_branch_problem(
        str(folder).strip(), str(branch), [str(b) for b in to_plain(supported or [])]
    )


def nvidia_repo_folder(facts: Any) -> str:
    return published_versions.nvidia_repo_folder(to_plain(facts or {}))


def release_default(folder: Any, name: Any) -> str:
    return published_versions.release_defaults(str(folder).strip())[str(name)]


def apt_driver_packages(distribution: Any, branch: Any, modules: Any, version: Any = "") -> dict[str, Any]:
    return published_versions.apt_driver_packages(
        str(distribution), str(branch), str(modules), str(version or "")
    )


def kernel_modules_problem(branch: Any, modules: Any) -> str:
    return published_versions.kernel_modules_problem(str(branch), str(modules))


def pinning_problem(names: Any, package: Any) -> str:
    return published_versions.pinning_problem(str(names or ""), str(package))


def stale_pinning_packages(listing: Any, wanted: Any) -> list[str]:
    return published_versions.stale_pinning_packages(str(listing or ""), str(wanted or ""))


def distro_refusal(folder: Any) -> str:
    return published_versions.distro_refusal(str(folder).strip())


def repository_pin_problem(text: Any, package: Any, version_prefix: Any, what: Any) -> str:
    return published_versions.pin_problem(str(text or ""), str(package), str(version_prefix), str(what))


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return guarded_filters(
            {
                "fabric_settings": fabric_settings,
                "nccl_environment": nccl_environment,
                "local_port_range": local_port_range,
                "nic_ets": nic_ets,
                "nic_cable_lengths": nic_cable_lengths,
                "lldpd_interface_pattern": lldpd_interface_pattern,
                "cidrs_by_family": cidrs_by_family,
                "interface_with_address": interface_with_address,
                "firewall_openings": firewall_openings,
                "nvcc_gencode": nvcc_gencode,
                "nccl_tests_make_argv": nccl_tests_make_argv,
                "nccl_conf_variables": nccl_conf_variables,
                "nccl_verify_jobs": nccl_verify_jobs,
                "nccl_shared_variables": nccl_shared_variables,
                "nccl_test_host": nccl_test_host,
                "apt_components": apt_components,
                "apt_release_mirror": apt_release_mirror,
                "persistenced_exec_start": persistenced_exec_start,
                "cuda_published_problem": cuda_published_problem,
                "repository_pin_problem": repository_pin_problem,
                "cuda_driver_problem": cuda_driver_problem,
                "driver_branch_problem": driver_branch_problem,
                "nvidia_repo_folder": nvidia_repo_folder,
                "release_default": release_default,
                "apt_driver_packages": apt_driver_packages,
                "kernel_modules_problem": kernel_modules_problem,
                "pinning_problem": pinning_problem,
                "stale_pinning_packages": stale_pinning_packages,
                "distro_refusal": distro_refusal,
                "driver_boot_decision": driver_boot_decision,
            },
            GPUNET_IMPORT_ERROR,
        )
