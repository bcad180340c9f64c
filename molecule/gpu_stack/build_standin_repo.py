#!/usr/bin/env python3
"""Build a signed, flat apt repository of STAND-IN packages carrying NVIDIA's package names and versions.

NVIDIA's CUDA repositories cannot be reached from the test machines, so the gpu_stack scenario
installs from this repository instead. The packages are empty apart from a STAND-IN note (and a
stub nvcc for cuda-toolkit); only their names, versions and dependencies mirror NVIDIA's Debian 12
repository, which is what the roles' repository, pin, hold and upgrade logic acts on.

    build_standin_repo.py OUT_DIR     (needs dpkg-deb and gpg)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from email.utils import formatdate
from pathlib import Path

DRIVER_VERSIONS = ("580.82.07-1", "580.95.05-1")
# The roles' default pins (src/gpunet/hosts/nvidia_releases.yml) and the next NCCL, for the upgrade.
NCCL_VERSIONS = ("2.28.9-1+cuda13.0", "2.29.3-1+cuda13.0")
CUDA_VERSION = "13.0.2-1"

NOTE = "STAND-IN package built by gpunet's Molecule test; not NVIDIA software.\n"


def packages() -> list[tuple[str, str, str, dict[str, str]]]:
    """(name, version, depends, {path: content}) for every stand-in package."""
    result = []
    for version in DRIVER_VERSIONS:
        for name in ("nvidia-kernel-open-dkms", "nvidia-kernel-dkms", "nvidia-persistenced"):
            result.append((name, version, "", {}))
        result.append(
            (
                "nvidia-driver",
                version,
                f"nvidia-kernel-open-dkms (= {version}) | nvidia-kernel-dkms (= {version})",
                {},
            )
        )
        result.append(("nvidia-fabricmanager-580", version, "", {}))
    for version in NCCL_VERSIONS:
        result.append(("libnccl2", version, "", {}))
        result.append(("libnccl-dev", version, f"libnccl2 (= {version})", {}))
    nvcc = "#!/bin/sh\necho 'nvcc STAND-IN: Cuda compilation tools, release 13.0, V13.0.88'\n"
    result.append(("cuda-toolkit-13-0", CUDA_VERSION, "", {"usr/local/cuda-13.0/bin/nvcc": nvcc}))
    return result


def build_deb(work: Path, out: Path, name: str, version: str, depends: str, files: dict[str, str]) -> Path:
    root = work / f"{name}_{version}"
    (root / "DEBIAN").mkdir(parents=True)
    control = [
        f"Package: {name}",
        f"Version: {version}",
        "Architecture: all",
        "Maintainer: gpunet tests <tests@gpunet.invalid>",
        f"Description: STAND-IN for NVIDIA's {name} (gpunet Molecule test)",
    ]
    if depends:
        control.insert(3, f"Depends: {depends}")
    (root / "DEBIAN/control").write_text("\n".join(control) + "\n")
    doc = root / "usr/share/doc" / name / "STAND-IN"
    doc.parent.mkdir(parents=True)
    doc.write_text(NOTE)
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        target.chmod(0o755)
    deb = out / f"{name}_{version.replace(':', '%3a')}_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(root), str(deb)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return deb


def index_entry(deb: Path) -> str:
    control = subprocess.run(["dpkg-deb", "-f", str(deb)], check=True, capture_output=True, text=True).stdout
    data = deb.read_bytes()
    return (
        control.rstrip("\n")
        + f"\nFilename: ./{deb.name}\nSize: {len(data)}\n"
        + f"MD5sum: {hashlib.md5(data).hexdigest()}\nSHA256: {hashlib.sha256(data).hexdigest()}\n"
    )


def sign(out: Path) -> None:
    packages_data = (out / "Packages").read_bytes()
    release = (
        "Origin: gpunet-standin\nLabel: gpunet STAND-IN for NVIDIA CUDA repository\n"
        f"Date: {formatdate(usegmt=True)}\nArchitectures: amd64 arm64 all\n"
        f"SHA256:\n {hashlib.sha256(packages_data).hexdigest()} {len(packages_data)} Packages\n"
    )
    (out / "Release").write_text(release)
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "GNUPGHOME": home}
        gpg = ["gpg", "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", ""]
        subprocess.run(
            [*gpg, "--quick-gen-key", "gpunet stand-in repository", "default", "default", "never"],
            check=True,
            env=env,
            stderr=subprocess.DEVNULL,
        )
        subprocess.run(
            [*gpg, "--yes", "--armor", "--output", str(out / "standin.asc"), "--export"], check=True, env=env
        )
        subprocess.run(
            [*gpg, "--yes", "--clearsign", "--output", str(out / "InRelease"), str(out / "Release")],
            check=True,
            env=env,
        )


def main(out_dir: str) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        debs = [build_deb(Path(work), out, *spec) for spec in packages()]
    (out / "Packages").write_text("\n".join(index_entry(deb) for deb in debs))
    sign(out)
    print(f"stand-in repository with {len(debs)} packages in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
