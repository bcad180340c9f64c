"""Where the lab keeps its files: state in .lab/, per-run inventory in inventories/lab/generated/,
under the folder `gpunet lab` runs in (a checkout, or a folder laid out like one: `--dir`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# Every container, network and image the lab creates carries this prefix (Molecule's never do).
NAME_PREFIX = "gpunet-lab"
# Label on every container and network the lab creates, so `down` finds them without state.
LABEL = "gpunet.lab=1"


@dataclass(frozen=True)
class LabPaths:
    root: Path = field(default_factory=Path.cwd)

    @property
    def inventory(self) -> Path:
        return self.root / "inventories" / "lab"

    @property
    def generated(self) -> Path:
        """Read by Ansible as part of the lab inventory; holds only inventory files."""
        return self.inventory / "generated"

    @property
    def generated_inventory(self) -> Path:
        return self.generated / "lab.yml"

    @property
    def state_dir(self) -> Path:
        return self.root / ".lab"

    @property
    def state_file(self) -> Path:
        return self.state_dir / "state.json"

    @property
    def ssh_key(self) -> Path:
        return self.state_dir / "ssh" / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.state_dir / "ssh" / "known_hosts"

    @property
    def switch_dir(self) -> Path:
        """Simulator state files, host keys and logs."""
        return self.state_dir / "switches"

    @property
    def traffic_dir(self) -> Path:
        """The incast SIMULATION's exchange folder, bind-mounted into every node
        (gpunet.lab.traffic_folder; the switch simulators serve it)."""
        return self.state_dir / "traffic"

    @property
    def fact_cache(self) -> Path:
        """ansible.cfg's fact_caching_connection: facts of this lab's containers, stale once they go."""
        return self.root / ".cache" / "ansible-facts"

    @property
    def containers_conf(self) -> Path:
        return self.root / "molecule" / "containers.conf"

    @property
    def base_image_script(self) -> Path:
        return self.root / "scripts" / "build-base-image.sh"
