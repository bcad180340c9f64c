"""The lab's container images: the Debian 12 base (scripts/build-base-image.sh), a node image and an
NTP server image built from the Containerfiles in images/. Each is built once and reused; the tag
is a digest of its build folder, so an edited Containerfile builds a new image."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gpunet.lab.errors import LabError
from gpunet.lab.paths import NAME_PREFIX, LabPaths
from gpunet.lab.podman import Podman

BASE_IMAGE = "localhost/gpunet-debian12:latest"
# Package data; podman builds from a real folder, which an installed (unzipped) package is.
IMAGES_DIR = Path(str(resources.files("gpunet.lab").joinpath("images")))


@dataclass(frozen=True)
class LabImages:
    node: str
    ntp: str


def image_tag(kind: str, build_dir: Path = IMAGES_DIR) -> str:
    """localhost/gpunet-lab-<kind>:<digest of the files in images/<kind>/>."""
    digest = hashlib.sha256()
    for path in sorted((build_dir / kind).rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(build_dir).as_posix().encode())
            digest.update(path.read_bytes())
    return f"localhost/{NAME_PREFIX}-{kind}:{digest.hexdigest()[:12]}"


def ensure_images(podman: Podman, paths: LabPaths, say) -> LabImages:
    if not podman.exists("image", BASE_IMAGE):
        say(f"building the base image {BASE_IMAGE} (about a minute, once)")
        done = subprocess.run(
            [str(paths.base_image_script), BASE_IMAGE], env=podman.env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise LabError(f"{paths.base_image_script} failed: {done.stderr.strip() or done.stdout.strip()}")
    images = LabImages(node=image_tag("node"), ntp=image_tag("ntp"))
    for kind, tag in (("node", images.node), ("ntp", images.ntp)):
        if not podman.exists("image", tag):
            say(f"building {tag}")
            podman.run("build", "--quiet", "--label", "gpunet.lab=1", "-t", tag, str(IMAGES_DIR / kind))
    return images
