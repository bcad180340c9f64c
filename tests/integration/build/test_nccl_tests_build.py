"""nccl-tests built for real with CUDA 13, as the nccl_tests role builds it: the role's own make line
(gpunet.hosts.nccl_tests.make_argv, MPI=1 with Debian's Open MPI at the role's MPI_HOME), against
NVIDIA's CUDA 13.0 compiler and runtime and NCCL 2.28.9 (the release table's default NCCL) from
NVIDIA's PyPI wheels, which no GPU is needed for. The sources are ../shared/third-party/nccl-tests.

This is the evidence behind nvidia_releases.yml's `built_nccl_tests`: 2.19.6 (the default) and
2.13.11, whose Makefile hard-codes -std=c++11, both compile and link with nvcc 13.0.88.

One gencode (sm_90) instead of the role's default five: the role's nccl_tests_nvcc_gencode knob, as
an operator cuts build time; the default set only multiplies the device passes. Measured on 2 cores:
2.19.6 about 3 min, 2.13.11 about 20 s, the wheels about 20 s from pip's cache.

Not part of `make test` (CI): pytest's default norecursedirs skips a folder named build, and four
minutes of compiling do not fit the 45-minute CI budget beside everything else (7 December 2026:
found unrun there, left out on purpose since). `make test-nccl-build` runs it; run it when
nvidia_releases.yml's nccl-tests or CUDA entries change.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from gpunet.hosts.nccl_tests import make_argv
from gpunet.hosts.published_versions import releases
from tests.conftest import REPO_ROOT

THIRD_PARTY = REPO_ROOT.parent / "shared" / "third-party" / "nccl-tests"
# NVIDIA's wheels of one CUDA 13.0 toolkit (nvcc needs crt headers, cicc from nvvm and CCCL since
# CUDA 13 split them out) and of NCCL 2.28.9 built for CUDA 13.
WHEELS = (
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-cccl==13.0.85",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-nccl-cu13==2.28.9",
)
GENCODE = "-gencode=arch=compute_90,code=sm_90"
# The role's MPI_HOME on Debian (roles/nccl_tests/vars/Debian.yml): libopenmpi-dev.
MPI_HOME = Path(f"/usr/lib/{platform.machine()}-linux-gnu/openmpi")


def _toolkit() -> tuple[Path, Path]:
    """CUDA_HOME and NCCL_HOME laid out from the wheels, cached across runs by the pins' digest."""
    digest = hashlib.sha256(" ".join(WHEELS).encode()).hexdigest()[:12]
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gpunet" / f"cuda13-{digest}"
    cuda, nccl = root / "nvidia" / "cu13", root / "nvidia" / "nccl"
    if not (cuda / "bin" / "nvcc").exists():
        shutil.rmtree(root, ignore_errors=True)
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(root), *WHEELS]
        done = subprocess.run(pip, capture_output=True, text=True, check=False, timeout=900)
        if done.returncode != 0:
            pytest.fail(f"could not install NVIDIA's CUDA 13 wheels: {done.stderr[-2000:]}")
        # The Makefile links -L$(CUDA_HOME)/lib64 -lcudart -lnccl: the wheels ship lib/ and only
        # the versioned sonames.
        (cuda / "lib64").symlink_to("lib")
        (cuda / "lib" / "libcudart.so").symlink_to("libcudart.so.13")
        (nccl / "lib" / "libnccl.so").symlink_to("libnccl.so.2")
    return cuda, nccl


def _needs(version: str) -> Path:
    tarball = THIRD_PARTY / f"nccl-tests-{version}.tar.gz"
    if not tarball.is_file():
        pytest.skip(f"{tarball} is not present")
    if not (MPI_HOME / "include" / "mpi.h").is_file():
        pytest.fail(f"{MPI_HOME}/include/mpi.h missing: scripts/setup.sh installs libopenmpi-dev")
    if shutil.which("g++") is None:
        pytest.fail("g++ missing: scripts/setup.sh installs it")
    return tarball


@pytest.mark.parametrize("version", releases()["cuda_majors"]["13"]["built_nccl_tests"])
def test_nccl_tests_builds_with_mpi_against_cuda_13(version: str, tmp_path: Path) -> None:
    tarball = _needs(version)
    cuda, nccl = _toolkit()
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path, filter="data")
    source = tmp_path / f"nccl-tests-{version}"
    build = tmp_path / "build"
    argv = make_argv(
        build_dir=str(build),
        cuda_home=str(cuda),
        nccl_home=str(nccl),
        jobs=os.cpu_count() or 2,
        mpi_home=str(MPI_HOME),
        gencode=GENCODE,
    )
    done = subprocess.run(argv, cwd=source, capture_output=True, text=True, check=False, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    release = subprocess.run([str(cuda / "bin" / "nvcc"), "--version"], capture_output=True, text=True)
    assert "release 13.0" in release.stdout
    binary = build / "all_reduce_perf"
    assert binary.is_file()
    # Linked against MPI (the multi-node build), the CUDA runtime and NCCL: all resolve.
    env = {**os.environ, "LD_LIBRARY_PATH": f"{cuda / 'lib'}:{nccl / 'lib'}"}
    linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=env, check=True).stdout
    for library in ("libmpi.so.40", "libcudart.so.13", "libnccl.so.2"):
        line = next((row for row in linked.splitlines() if library in row), "")
        assert line and "not found" not in line, linked
