#!/usr/bin/env python3
"""Write the factory config_db of a SONiC SKU from sonic-buildimage's own templates.

Maintainer's tool, run by hand against a sonic-buildimage checkout; its output is committed under
src/gpunet/lab/switchsim/factory/sonic/ so the simulator boots each SONiC model in the state the
real image leaves it in. What it reproduces, step by step (sources at the commit it reads):

1. First boot without minigraph or ZTP: `config-setup` runs `sonic-cfggen -H -k <SKU> --preset
   <preset>` with the SKU and preset from the platform's `default_sku`
   (files/image_config/config-setup/config-setup, generate_config). `-k` builds PORT with
   src/sonic-config-engine/portconfig.py get_port_config: where the SKU has hwsku.json and the
   platform's platform.json lists interfaces (sonic-py-common device_info
   get_path_to_port_config_file, both SKUs here), each cage's ports come from
   parse_platform_json_file and BreakoutCfg.get_config for hwsku.json's default_brkout_mode
   (alias, lanes, speed, index, subport, fec "rs" at 50G or more per lane, hwsku.json's optional
   fec/autoneg/role); port_config.ini is read only where that is missing. The `t1` preset sets
   DEVICE_METADATA type LeafRouter, and every port admin up with MTU 9100
   (src/sonic-config-engine/config_samples.py, generate_t1_sample_config).
1b. config-setup loads that file with `config reload` (reload_configdb), which runs
   `db_migrator.py -o migrate` (sonic-utilities config/main.py migrate_db_to_lastest): a new
   config_db has no VERSIONS entry, so every step from version_unknown runs, among them
   version_3_0_0's migrate_config_db_port_table_for_dhcp_rate_limit (every PORT entry without
   one gets dhcp_rate_limit "300"; its autoneg migration changes nothing here). Only these PORT
   fields are reproduced from db_migrator (sonic-utilities, commit in the document's source).
2. init_cfg.json.j2's DEVICE_METADATA: `buffer_model` "dynamic" when the image is built with
   SONIC_BUFFER_MODEL=dynamic (platform/mellanox/rules.mk), otherwise "traditional".
3. `config qos reload` (also run by `config load_minigraph`): sonic-cfggen renders the SKU's
   buffers_dynamic.json.j2 (Mellanox, dynamic model) or buffers.json.j2, and qos.json.j2, with
   the DB's data, and writes the result into config_db (sonic-utilities config/main.py, `qos
   reload`). The Jinja environment below is sonic-cfggen's (`_get_jinja2_env`): trim_blocks, the
   template search path, and the filters and globals these templates use.
4. For dynamic port breakout (`config interface breakout`, sonic-utilities config/main.py), the
   document also keeps platform.json's cages (lanes, index, breakout_modes with their aliases),
   and the per-port entries these templates render for one port (`qos_per_port`), which `config
   qos reload --ports` writes for a new child port (_qos_update_ports). The script checks that
   they are the same for every port, in the default mode and with every cage in each other mode
   of its platform.json, so one template per SKU stands for every port in every mode.

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
# sonic-utilities commit the db_migrator step (1b) was read at
SONIC_UTILITIES_COMMIT = "691b1bbc4fd2b71657d1b0b334c37136deb51526"
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


def ports_of(sku_dir: Path) -> dict[str, dict[str, str]]:
    """PORT entries from port_config.ini as portconfig.parse_port_config_file builds them: the
    header's columns, alias defaulting to the name (used where there is no platform.json)."""
    header = ["name", "lanes", "alias", "index"]
    ports: dict[str, dict[str, str]] = {}
    for line in (sku_dir / "port_config.ini").read_text().splitlines():
        if line.startswith("#"):
            if "name" in line:
                header = line.strip("#").split()
            continue
        tokens = line.split()
        if len(tokens) < 2:
            continue
        values = dict(zip(header, tokens, strict=False))
        name = values.pop("name")
        values.setdefault("alias", name)
        ports[name] = values
    return ports


# portconfig.py BRKOUT_PATTERN and the hwsku.json attributes parse_platform_json_file copies
BRKOUT_PATTERN = re.compile(r"(\d{1,6})x(\d{1,6}G?)(\[(\d{1,6}G?,?)*\])?(\((\d{1,6})\))?")
OPTIONAL_HWSKU_ATTRIBUTES = ["fec", "autoneg", "role"]


def _speed(text: str) -> int:
    return int(text[:-1]) * 1000 if text.endswith("G") else int(text)


def breakout_entries(mode: str, lane_count: int) -> list[tuple[int, int, frozenset[int], int]]:
    """BreakoutCfg._str_to_entries: per `+` group (ports, default speed, supported speeds,
    assigned lanes; a group without `(n)` takes all the cage's lanes)."""
    entries = []
    for group in mode.split("+"):
        match = BRKOUT_PATTERN.match(group)
        if match is None:
            raise RuntimeError(f'Breakout mode "{mode}" validation failed!')
        default = _speed(match[2])
        speeds = {default} | {_speed(s.strip()) for s in (match[3] or "[]")[1:-1].split(",") if s.strip()}
        entries.append((int(match[1]), default, frozenset(speeds), int(match[6]) if match[6] else lane_count))
    return entries


def child_ports(name: str, mode: str, cage: dict[str, Any]) -> dict[str, dict[str, str]]:
    """BreakoutCfg(name, mode, platform.json's entry).get_config(): the cage's ports in `mode`."""
    lanes, indexes = cage["lanes"].split(","), cage["index"].split(",")
    wanted = breakout_entries(mode, len(lanes))
    # BreakoutModeEntry.__eq__ compares port count, supported speeds and assigned lanes only
    key = [(count, speeds, assigned) for count, _, speeds, assigned in wanted]
    aliases = next(
        (
            alias
            for known, alias in cage["breakout_modes"].items()
            if [(c, sp, a) for c, _, sp, a in breakout_entries(known, len(lanes))] == key
        ),
        None,
    )
    if aliases is None:
        raise RuntimeError(f"Unsupported breakout mode {mode}!")
    total = sum(count for count, _, _, _ in wanted)
    base, lane_id, alias_id = int(name.replace("Ethernet", "")), 0, 0
    ports: dict[str, dict[str, str]] = {}
    for count, default, _, assigned in wanted:
        per_port = assigned // count
        for _ in range(count):
            port = {
                "alias": aliases[alias_id],
                "lanes": ",".join(lanes[lane_id : lane_id + per_port]),
                "speed": str(default),
                "index": indexes[lane_id],
                "subport": "0" if total == 1 else str(alias_id + 1),
            }
            if default // per_port >= 50000:  # "If the lane speed is greater than 50G, enable FEC"
                port["fec"] = "rs"
            ports[f"Ethernet{base + lane_id}"] = port
            lane_id += per_port
            alias_id += 1
    return ports


def platform_ports(platform_json: dict[str, Any], hwsku: dict[str, Any]) -> dict[str, dict[str, str]]:
    """parse_platform_json_file: every platform.json cage hwsku.json names, in its default mode,
    with hwsku.json's optional attributes of any child port copied onto all of the cage's ports."""
    ports: dict[str, dict[str, str]] = {}
    for cage, properties in platform_json["interfaces"].items():
        if cage not in hwsku:
            continue
        children = child_ports(cage, hwsku[cage]["default_brkout_mode"], properties)
        for child in list(children):
            for key, item in hwsku.get(child, {}).items():
                if key in OPTIONAL_HWSKU_ATTRIBUTES:
                    for port in children.values():
                        port[key] = item
        ports.update(children)
    return ports


def supported_speeds(platform_json: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per cage: its lanes, and per lanes-per-port the speeds its platform.json breakout modes
    give such a port (default and bracketed speeds): what the simulated STATE_DB PORT_TABLE
    supported_speeds of a port on those lanes holds."""
    cages: dict[str, dict[str, Any]] = {}
    for cage, properties in platform_json["interfaces"].items():
        lane_count = len(properties["lanes"].split(","))
        speeds: dict[int, set[int]] = {}
        for mode in properties["breakout_modes"]:
            for count, _, allowed, assigned in breakout_entries(mode, lane_count):
                speeds.setdefault(assigned // count, set()).update(allowed)
        cages[cage] = {
            "lanes": properties["lanes"],
            "speeds": {str(lanes): sorted(values) for lanes, values in sorted(speeds.items())},
        }
    return cages


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


def render(tree: Path, platform_dir: str, sku: str, model: str) -> tuple[dict[str, Any], dict[str, Any]]:
    sku_dir = tree / "device" / platform_dir / sku
    platform = platform_dir.split("/")[1]
    hwsku = json.loads((sku_dir / "hwsku.json").read_text())["interfaces"]
    platform_json = json.loads((tree / "device" / platform_dir / "platform.json").read_text())
    # device_info.get_path_to_port_config_file: platform.json (with hwsku.json) when it lists
    # interfaces, else the SKU's port_config.ini
    ports = platform_ports(platform_json, hwsku) if platform_json.get("interfaces") else ports_of(sku_dir)
    data = t1_preset("sonic", platform, sku, ports)
    # db_migrator version_3_0_0, migrate_config_db_port_table_for_dhcp_rate_limit (step 1b)
    for fields in data["PORT"].values():
        fields.setdefault("dhcp_rate_limit", "300")
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
    return {table: entries for table, entries in config.items() if entries}, supported_speeds(platform_json)


# Tables _qos_update_ports (sonic-utilities config/main.py) rewrites per port: keyed `<port>` or
# `<port>|...`; CABLE_LENGTH is handled apart (the port is a field name).
QOS_PORT_TABLES = [
    "PORT_QOS_MAP",
    "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST",
    "QUEUE",
    "BUFFER_PG",
    "BUFFER_QUEUE",
]


def qos_of_port(config: dict[str, Any], port: str) -> dict[str, Any]:
    """The entries the QoS/buffer templates rendered for `port`, the port's name as `<port>`."""
    entries: dict[str, Any] = {}
    for table in QOS_PORT_TABLES:
        for key, fields in config.get(table, {}).items():
            if key == port or key.startswith(f"{port}|"):
                entries.setdefault(table, {})[key.replace(port, "<port>", 1)] = fields
    for key, lengths in config.get("CABLE_LENGTH", {}).items():
        if port in lengths:
            entries.setdefault("CABLE_LENGTH", {})[key] = lengths[port]
    return entries


def qos_per_port(
    tree: Path, platform_dir: str, sku: str, model: str, config: dict[str, Any]
) -> dict[str, Any]:
    """The one per-port template of the SKU; RuntimeError where a port in some mode renders another."""
    template = qos_of_port(config, next(iter(config["PORT"])))
    hwsku_file = tree / "device" / platform_dir / sku / "hwsku.json"
    original = hwsku_file.read_text()
    cages = json.loads((tree / "device" / platform_dir / "platform.json").read_text())["interfaces"]
    modes = {mode for cage in cages.values() for mode in cage["breakout_modes"]}
    try:
        for mode in [None, *sorted(modes)]:
            hwsku = json.loads(original)
            for cage, fields in hwsku["interfaces"].items():
                if mode in cages.get(cage, {}).get("breakout_modes", {}):
                    fields["default_brkout_mode"] = mode
            hwsku_file.write_text(json.dumps(hwsku))
            rendered = config if mode is None else render(tree, platform_dir, sku, model)[0]
            for port in rendered["PORT"]:
                if qos_of_port(rendered, port) != template:
                    raise RuntimeError(f"{sku}: {port} in mode {mode} renders other QoS entries")
    finally:
        hwsku_file.write_text(original)
    return template


def breakout_cages(tree: Path, platform_dir: str) -> dict[str, Any]:
    """platform.json's cages as `config interface breakout` reads them (get_child_ports)."""
    cages = json.loads((tree / "device" / platform_dir / "platform.json").read_text())["interfaces"]
    keep = ("lanes", "index", "breakout_modes")
    return {cage: {key: fields[key] for key in keep} for cage, fields in cages.items()}


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
            config, speeds = render(tree, platform_dir, sku, model)
            per_port = qos_per_port(tree, platform_dir, sku, model, config)
            platform_json = f"device/{platform_dir}/platform.json"
            document = {
                "source": {
                    "repository": "https://github.com/sonic-net/sonic-buildimage",
                    "commit": commit,
                    "sku": f"device/{platform_dir}/{sku}",
                    "steps": "config-setup factory (sonic-cfggen -k: PORT and BREAKOUT_CFG from "
                    "platform.json and hwsku.json, --preset t1), `config reload`'s db_migrator (PORT "
                    "dhcp_rate_limit), buffer_model from the image build, then `config qos reload` "
                    "(sonic-utilities config/main.py): "
                    + buffers_template(model)
                    + " and qos.json.j2 rendered as sonic-cfggen renders them",
                    "generator": "scripts/sonic-factory-config.py",
                    "db_migrator": f"sonic-net/sonic-utilities {SONIC_UTILITIES_COMMIT} "
                    "scripts/db_migrator.py version_3_0_0 (PORT dhcp_rate_limit only)",
                },
                "config_db": config,
                # STATE_DB PORT_TABLE supported_speeds comes from the SAI at run time (sonic-swss
                # portsorch); the simulator assumes it holds the speeds platform.json's breakout
                # modes give a port of that many lanes (assumed, not read from a switch)
                "supported_speeds": {
                    "source": f"device/{platform_dir}/platform.json "
                    "breakout_modes: per cage, the default and bracketed speeds per lanes-per-port "
                    "[assumed: the SAI reports these]",
                    "cages": speeds,
                },
                # `config interface breakout` builds child ports from these (portconfig.py
                # get_child_ports, BreakoutCfg) and accepts only these mode names
                "platform": {"source": platform_json, "interfaces": breakout_cages(tree, platform_dir)},
                # what `config qos reload --ports <port>` writes for any port of this SKU
                "qos_per_port": {
                    "source": f"device/{platform_dir}/{sku}: {buffers_template(model)} and "
                    "qos.json.j2 rendered per port (the same for every port in every breakout mode)",
                    "entries": per_port,
                },
            }
            target = OUT / f"{sku}.json"
            target.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
            print(f"{target}: {sum(len(v) for v in config.values())} entries in {len(config)} tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
