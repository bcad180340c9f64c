#!/usr/bin/env python3
"""Write the factory config_db of a SONiC SKU from sonic-buildimage's own templates.

Maintainer's tool, run by hand against a sonic-buildimage checkout; its output is committed under
src/gpunet/lab/switchsim/factory/sonic/ so the simulator boots each SONiC model in the state the
real image leaves it in. What it reproduces, step by step (sources at the commit it reads):

1. First boot without minigraph or ZTP: `config-setup` runs `sonic-cfggen -H -k <SKU> --preset
   <preset>` with the SKU and preset from the platform's `default_sku`
   (files/image_config/config-setup/config-setup, generate_config). The `t1` preset sets
   DEVICE_METADATA type LeafRouter, and every port admin up with MTU 9100
   (src/sonic-config-engine/config_samples.py, generate_t1_sample_config).
2. init_cfg.json.j2's DEVICE_METADATA: `buffer_model` "dynamic" when the image is built with
   SONIC_BUFFER_MODEL=dynamic (platform/mellanox/rules.mk), otherwise "traditional".
3. `config qos reload` (also run by `config load_minigraph`): sonic-cfggen renders the SKU's
   buffers_dynamic.json.j2 (Mellanox, dynamic model) or buffers.json.j2, and qos.json.j2, with
   the DB's data, and writes the result into config_db (sonic-utilities config/main.py, `qos
   reload`). The Jinja environment below is sonic-cfggen's (`_get_jinja2_env`): trim_blocks, the
   template search path, and the filters and globals these templates use.

    scripts/sonic-factory-config.py /path/to/sonic-buildimage

Needs jinja2 and git; reads the checkout's HEAD through `git ls-tree`/`git cat-file`, never its
work tree.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import jinja2

# (platform folder, SKU, the buffer model the image builds with)
SKUS = [
    ("mellanox/x86_64-nvidia_sn5600-r0", "ACS-SN5600", "dynamic"),
    ("dell/x86_64-dell_z9864f-r0", "Dell-Z9864f-O64", "traditional"),
]
# Folders the SKUs' templates link into
LINKED = ["device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700"]
OUT = Path(__file__).resolve().parent.parent / "src/gpunet/lab/switchsim/factory/sonic"
MODE = re.compile(r"(\d+)x(\d+)G")


def extract(repo: Path, into: Path, paths: list[str]) -> None:
    """Write the text files and symlinks under `paths` at HEAD (a partial clone may lack some
    large binary blobs, which no template reads)."""
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-z", "HEAD", "--", *paths], check=True, capture_output=True
    ).stdout.decode()
    for record in filter(None, listing.split("\0")):
        meta, name = record.split("\t", 1)
        mode, _, blob = meta.split()
        shown = subprocess.run(["git", "-C", str(repo), "cat-file", "blob", blob], capture_output=True)
        if shown.returncode != 0:
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(shown.stdout.decode())
        else:
            target.write_bytes(shown.stdout)


def ports_of(sku_dir: Path, hwsku: dict[str, Any]) -> dict[str, dict[str, str]]:
    """PORT entries as sonic-cfggen's portconfig builds them: port_config.ini's columns, and the
    speed of hwsku.json's default breakout mode where the ini has no speed column."""
    header: list[str] = []
    ports: dict[str, dict[str, str]] = {}
    for raw in (sku_dir / "port_config.ini").read_text().splitlines():
        line = raw.strip()
        if line.startswith("#") and "name" in line:
            header = line.lstrip("#").split()
            continue
        if not line or line.startswith("#"):
            continue
        values = dict(zip(header or ["name", "lanes", "alias", "index", "speed"], line.split(), strict=False))
        name = values.pop("name")
        if "speed" not in values:
            mode = MODE.match(hwsku[name]["default_brkout_mode"])
            assert mode, name
            values["speed"] = str(int(mode[2]) * 1000)
        ports[name] = values
    return ports


def t1_preset(hostname: str, platform: str, sku: str, ports: dict[str, dict[str, str]]) -> dict[str, Any]:
    """What generate_t1_sample_config leaves in the tables the QoS templates read. Its empty
    DEVICE_NEIGHBOR never reaches config_db (Redis keeps no empty table), so when `qos reload`
    reads the DB the templates find no DEVICE_NEIGHBOR and take every port as active."""
    return {
        "DEVICE_METADATA": {
            "localhost": {
                "hostname": hostname,
                "hwsku": sku,
                "platform": platform,
                "type": "LeafRouter",
                "bgp_asn": "65100",
            }
        },
        "PORT": {name: {**values, "admin_status": "up", "mtu": "9100"} for name, values in ports.items()},
    }


def environment(paths: list[Path]) -> jinja2.Environment:
    loader = jinja2.FileSystemLoader([str(p) for p in paths])
    env = jinja2.Environment(loader=loader, trim_blocks=True)

    def sort_by_port_index(value: list[str]) -> list[str]:
        # sonic-cfggen sorts port names by their numeric index
        return sorted(value, key=lambda name: int(re.sub(r"\D", "", name) or 0))

    def template_exists(name: str) -> bool:
        try:
            loader.get_source(env, name)
        except jinja2.TemplateNotFound:
            return False
        return True

    env.filters["sort_by_port_index"] = sort_by_port_index
    env.globals["template_exists"] = template_exists
    env.globals["is_smartswitch"] = False
    return env


def buffers_template(model: str) -> str:
    return "buffers_dynamic.json.j2" if model == "dynamic" else "buffers.json.j2"


def render(tree: Path, platform_dir: str, sku: str, model: str) -> dict[str, Any]:
    sku_dir = tree / "device" / platform_dir / sku
    platform = platform_dir.split("/")[1]
    hwsku = json.loads((sku_dir / "hwsku.json").read_text())["interfaces"]
    data = t1_preset("sonic", platform, sku, ports_of(sku_dir, hwsku))
    # BREAKOUT_CFG: with platform.json and hwsku.json, sonic-cfggen -k writes each cage's
    # default_brkout_mode (src/sonic-config-engine/portconfig.py, parse_breakout_mode)
    data["BREAKOUT_CFG"] = {port: {"brkout_mode": f["default_brkout_mode"]} for port, f in hwsku.items()}
    # init_cfg.json.j2's DEVICE_METADATA fields, merged into config_db at first boot (images built
    # without ENABLE_PFCWD_ON_START or SHUTDOWN_BGP_ON_START: rules/config leaves both off)
    data["DEVICE_METADATA"]["localhost"].update(
        {"buffer_model": model, "default_bgp_status": "up", "default_pfcwd_status": "disable"}
    )
    data["DEVICE_METADATA"]["localhost"]["timezone"] = "UTC"
    env = environment([sku_dir, tree / "files/build_templates"])
    config = json.loads(json.dumps(data))
    for template in (buffers_template(model), "qos.json.j2"):
        rendered = json.loads(env.get_template(template).render(data))
        for table, entries in rendered.items():
            config.setdefault(table, {}).update(entries)
    return {table: entries for table, entries in config.items() if entries}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("buildimage", type=Path, help="a sonic-buildimage git checkout (its HEAD is read)")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "-C", str(args.buildimage), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        tree = Path(temporary)
        platforms = [f"device/{platform_dir}" for platform_dir, _, _ in SKUS]
        extract(args.buildimage, tree, ["files/build_templates", *platforms, *LINKED])
        for platform_dir, sku, model in SKUS:
            config = render(tree, platform_dir, sku, model)
            document = {
                "source": {
                    "repository": "https://github.com/sonic-net/sonic-buildimage",
                    "commit": commit,
                    "sku": f"device/{platform_dir}/{sku}",
                    "steps": "config-setup factory (sonic-cfggen --preset t1), buffer_model from the "
                    "image build, then `config qos reload` (sonic-utilities config/main.py): "
                    + buffers_template(model)
                    + " and qos.json.j2 rendered as sonic-cfggen renders them",
                    "generator": "scripts/sonic-factory-config.py",
                },
                "config_db": config,
            }
            target = OUT / f"{sku}.json"
            target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
            print(f"{target}: {sum(len(v) for v in config.values())} entries in {len(config)} tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
