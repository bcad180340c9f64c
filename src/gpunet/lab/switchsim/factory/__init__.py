"""The configuration each simulated switch model ships with (LAB EQUIPMENT).

SONiC: config_db as the image leaves it after first boot and `config qos reload`, generated from
sonic-buildimage's own templates for the model's SKU (sonic/<SKU>.json, each file names its source
commit and steps; scripts/sonic-factory-config.py writes them), with PORT and BREAKOUT_CFG as
sonic-cfggen -k writes them from the platform's platform.json and the SKU's hwsku.json, and per
cage the speeds the simulated STATE_DB reports as supported (from platform.json, assumed),
platform.json's cages for dynamic port breakout, and the per-port entries of the SKU's QoS
templates (what `config qos reload --ports` writes). The
CLI OSes: the running-config lines of cli.yml, each tagged with its source, with a block per port
the simulator models.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

import yaml

# gpunet switch model -> the SONiC SKU the vendor image boots it with (each platform folder's
# `default_sku` in sonic-buildimage: x86_64-nvidia_sn5600-r0 "ACS-SN5600 t1",
# x86_64-dell_z9864f-r0 "Dell-Z9864f-O64 t1").
SONIC_SKUS = {"SN5600": "ACS-SN5600", "Z9864F": "Dell-Z9864f-O64"}
# The model a simulated SONiC switch is when nobody names one.
DEFAULT_SONIC_MODEL = "SN5600"


class UnknownModel(ValueError):
    """A switch model the simulator has no factory configuration for."""


@cache
def _sonic_document(sku: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath("sonic", f"{sku}.json").read_text()
    return json.loads(text)


def sonic_supported_speeds(hwsku: str) -> dict[str, Any] | None:
    """Per cage of a SKU the simulator has a document for: its lanes and, per lanes-per-port, the
    speeds its platform.json breakout modes give (what the simulated STATE_DB reports); None for
    another SKU."""
    if hwsku not in SONIC_SKUS.values():
        return None
    return _sonic_document(hwsku)["supported_speeds"]["cages"]


def sonic_platform_interfaces(hwsku: str) -> dict[str, Any] | None:
    """platform.json's `interfaces` of a SKU the simulator has a document for (per cage: lanes,
    index, breakout_modes with their aliases), as `config interface breakout` reads them; None
    for another SKU (the simulated switch then has no platform.json)."""
    if hwsku not in SONIC_SKUS.values():
        return None
    return _sonic_document(hwsku)["platform"]["interfaces"]


def sonic_qos_per_port(hwsku: str) -> dict[str, Any]:
    """The entries the SKU's buffer and QoS templates render for one port, its name as `<port>`
    (the generator checks they are the same for every port in every breakout mode); {} for
    another SKU."""
    if hwsku not in SONIC_SKUS.values():
        return {}
    return _sonic_document(hwsku)["qos_per_port"]["entries"]


def sonic_factory(model: str | None, hostname: str) -> dict[str, Any]:
    """The factory config_db of a SONiC `model`, with the hostname the operator gave it."""
    model = model or DEFAULT_SONIC_MODEL
    if model not in SONIC_SKUS:
        known = ", ".join(SONIC_SKUS)
        raise UnknownModel(f"no SONiC factory config for switch model {model!r} (known: {known})")
    config = copy.deepcopy(_sonic_document(SONIC_SKUS[model])["config_db"])
    config["DEVICE_METADATA"]["localhost"]["hostname"] = hostname
    return config


@cache
def cli_factory_data() -> dict[str, Any]:
    """cli.yml: per CLI OS its factory running-config lines and the defaults kept in the OS."""
    return yaml.safe_load(resources.files(__package__).joinpath("cli.yml").read_text())


def cli_factory(platform: str, hostname: str, ports: Sequence[str]) -> list[str]:
    """The running config a CLI-OS switch boots with: global lines, a block per port, trailer."""
    data = cli_factory_data()[platform]
    lines = [line.format(hostname=hostname) for line in data["lines"]]
    for port in ports:
        lines += [line.format(port=port) for line in data["per_port"]]
    return lines + list(data["trailer"])


def factory_config(platform: str, hostname: str, model: str | None = None, ports: Sequence[str] = ()) -> Any:
    """The configuration a switch boots with: the config_db of its SKU on SONiC, the factory
    running config of cli.yml on the CLI OSes (their default QoS lives in the OS, not in it)."""
    if platform == "sonic":
        return sonic_factory(model, hostname)
    return cli_factory(platform, hostname, ports)
