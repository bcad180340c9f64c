"""Judge a SONiC config_db document against SONiC's own YANG models with libyang.

The translation from config_db JSON to YANG data follows sonic-yang-mgmt
(sonic-net/sonic-buildimage src/sonic-yang-mgmt/sonic_yang_ext.py at 086b03bd: `_xlateList`,
`_xlateContainer`, `_xlateType1MapList`): table T of module M is `/M:M/T/T_LIST[key...]`, a key
`a|b` is split over the list's keys in order (the list whose key count fits), a field of a map table
(DSCP_TO_TC_MAP ...) is an entry of the list's inner list, and a container table
(DEVICE_METADATA/localhost) stays a container. Written here rather than taken from sonic-yang-mgmt
because that package is not on PyPI and pulls in the SONiC build; the rules it needs are these few.

The document goes to libyang as XML: every value is text there, so no JSON number-versus-string
encoding (RFC 7951) has to be guessed per leaf type.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libyang
from libyang.util import c2str

from gpunet.netdev.jsonpatch import apply_patch, make_patch

PORT_NAME = re.compile(r"Ethernet\d+")

# Fields that YANG models as a leaf-list but config_db stores as one string, and the separator:
# sonic_yang_ext.py LEAF_LIST_WITH_STRING_VALUE_DICT (same file and commit as above).
LEAF_LIST_SEPARATORS = {
    ("MIRROR_SESSION", "src_ip"): ",",
    ("NTP", "src_intf"): ";",
    ("BGP_ALLOWED_PREFIXES", "prefixes_v4"): ",",
    ("BGP_ALLOWED_PREFIXES", "prefixes_v6"): ",",
    ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"): ",",
    ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"): ",",
    ("PORT", "adv_speeds"): ",",
    ("PORT", "adv_interface_types"): ",",
}


@dataclass(frozen=True)
class Table:
    module: str
    namespace: str
    name: str


@dataclass
class SonicYang:
    """A libyang context with every SONiC module, and which module holds which config_db table."""

    context: libyang.Context
    tables: dict[str, list[Table]] = field(default_factory=dict)

    @classmethod
    def load(cls, models_dir: Path) -> SonicYang:
        libyang.configure_logging(True)  # so libyang's errors carry the data path
        context = libyang.Context(str(models_dir))
        names = [path.name.removesuffix(".yang").split("@")[0] for path in sorted(models_dir.glob("*.yang"))]
        for name in names:
            context.load_module(name)
        sonic = cls(context)
        # Index only once every module is in: loading a module recompiles the context and frees
        # the schema nodes of the modules loaded before it, so only names are kept.
        for name in names:
            module = context.get_module(name)
            namespace = c2str(module.cdata.ns)
            for top in module.children():
                if isinstance(top, libyang.SContainer) and top.name() == name:
                    for table in top.children():
                        if isinstance(table, libyang.SContainer):
                            entry = Table(name, namespace, table.name())
                            sonic.tables.setdefault(table.name(), []).append(entry)
        return sonic

    def errors(self, config_db: dict[str, Any]) -> list[str]:
        """Every translation error and every per-leaf type/range/pattern/enum error, then (when
        there are none) the first whole-tree error: leafref, must, when, mandatory, unique."""
        problems: list[str] = []
        modules: dict[str, ET.Element] = {}
        leaves: list[tuple[str, str]] = []
        for table_name, entries in config_db.items():
            if table_name not in self.tables:
                problems.append(f"{table_name}: no SONiC YANG model has this table")
                continue
            for key, fields in entries.items():
                problems += self._entry(self.tables[table_name], key, fields, modules, leaves)
        problems += self._leaf_errors(leaves)
        if problems or not modules:
            return problems
        document = "".join(ET.tostring(element, encoding="unicode") for element in modules.values())
        try:
            # Only the modules that hold data, as sonic-yang-mgmt validates (libyang's own
            # ietf-yang-library would otherwise want its mandatory content-id).
            tree = self.context.parse_data_mem(document, "xml", strict=True, validate_present=True)
        except libyang.LibyangError as error:
            return [f"validation: {error}"]
        if tree is not None:
            tree.free()
        return []

    def _leaf_errors(self, leaves: list[tuple[str, str]]) -> list[str]:
        """Each leaf alone, in a tree of its own: libyang reports type errors one per leaf."""
        problems: list[str] = []
        for xpath, value in leaves:
            try:
                node = self.context.create_data_path(xpath, value=value)
            except libyang.LibyangError as error:
                problems.append(f"{xpath} = {value!r}: {error}")
            else:
                if node is not None:
                    node.root().free()
        return problems

    def _entry(
        self,
        candidates: list[Table],
        key: str,
        fields: dict[str, Any],
        modules: dict[str, ET.Element],
        leaves: list[tuple[str, str]],
    ) -> list[str]:
        for table in candidates:
            container = next(self.context.find_path(f"/{table.module}:{table.module}/{table.name}"))
            base = f"/{table.module}:{table.module}/{table.name}"
            where = f"{table.name}|{key}"
            inner = [c for c in container.children() if isinstance(c, libyang.SContainer) and c.name() == key]
            if inner:
                element = ET.SubElement(self._table_element(table, modules), key)
                return _fields(inner[0], f"{base}/{key}", fields, element, leaves, where)
            for schema_list in container.children():
                if not isinstance(schema_list, libyang.SList):
                    continue
                keys = list(schema_list.keys())
                parts = key.split("|")
                if len(parts) != len(keys):
                    continue
                entry = ET.SubElement(self._table_element(table, modules), schema_list.name())
                predicate = ""
                for key_leaf, part in zip(keys, parts, strict=True):
                    ET.SubElement(entry, key_leaf.name()).text = part
                    predicate += f"[{key_leaf.name()}={_quote(part)}]"
                path = f"{base}/{schema_list.name()}{predicate}"
                key_names = {k.name() for k in keys}
                return _fields(schema_list, path, fields, entry, leaves, where, key_names)
        return [f"{candidates[0].name}|{key}: the key fits none of the table's YANG lists"]

    @staticmethod
    def _table_element(table: Table, modules: dict[str, ET.Element]) -> ET.Element:
        top = modules.get(table.module)
        if top is None:
            top = modules[table.module] = ET.Element(table.module, xmlns=table.namespace)
        element = top.find(table.name)
        return element if element is not None else ET.SubElement(top, table.name)


def merged_into(base: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    """`base` after the JSON Patch gpunet's SONiC push makes from `fragment` (`config apply-patch`)."""
    return apply_patch(base, make_patch(base, fragment))


def stock_config_for(sample: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    """The stock config_db a fragment is pushed onto: the sample, plus a PORT entry (with the
    mandatory `lanes`, which a real switch's platform file provides) for every port the fragment
    names that the sample lacks. Lanes are made unique: sonic-port.yang does not check that, but a
    real switch has one lane set per port."""
    stock = json.loads(json.dumps(sample))
    ports = stock.setdefault("PORT", {})
    used = {int(lane) for entry in ports.values() for lane in str(entry.get("lanes", "")).split(",") if lane}
    next_lane = max(used, default=0) + 1
    for port in sorted(_port_names(fragment), key=lambda name: (len(name), name)):
        if port not in ports:
            ports[port] = {"lanes": ",".join(str(next_lane + i) for i in range(4)), "admin_status": "up"}
            next_lane += 4
    return stock


def _port_names(fragment: dict[str, Any]) -> set[str]:
    """Every EthernetN that a key part or a map field of the fragment names."""
    names: set[str] = set()
    for entries in fragment.values():
        for key, fields in entries.items():
            names.update(part for part in key.split("|") if PORT_NAME.fullmatch(part))
            if isinstance(fields, dict):
                names.update(name for name in fields if PORT_NAME.fullmatch(name))
    return names


def load_document(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def _quote(value: str) -> str:
    return f'"{value}"' if "'" in value else f"'{value}'"


def _fields(
    node: libyang.SNode,
    path: str,
    fields: dict[str, Any],
    element: ET.Element,
    leaves: list[tuple[str, str]],
    where: str,
    key_names: set[str] | None = None,
) -> list[str]:
    problems: list[str] = []
    children = {child.name(): child for child in node.children()}
    inner_lists = [child for child in children.values() if isinstance(child, libyang.SList)]
    for name, value in fields.items():
        if key_names and name in key_names:
            continue
        child = children.get(name)
        if isinstance(child, libyang.SLeafList):
            separator = LEAF_LIST_SEPARATORS.get((where.split("|")[0], name))
            if isinstance(value, list):
                items = value
            else:
                items = str(value).split(separator) if separator else [value]
            for item in items:
                ET.SubElement(element, name).text = str(item)
                leaves.append((f"{path}/{name}[.={_quote(str(item))}]", str(item)))
        elif isinstance(child, libyang.SLeaf):
            ET.SubElement(element, name).text = str(value)
            leaves.append((f"{path}/{name}", str(value)))
        elif child is None and len(inner_lists) == 1:
            inner = inner_lists[0]
            (inner_key,) = list(inner.keys())
            (inner_leaf,) = [c for c in inner.children() if c.name() != inner_key.name()]
            entry = ET.SubElement(element, inner.name())
            ET.SubElement(entry, inner_key.name()).text = name
            ET.SubElement(entry, inner_leaf.name()).text = str(value)
            leaves.append(
                (f"{path}/{inner.name()}[{inner_key.name()}={_quote(name)}]/{inner_leaf.name()}", str(value))
            )
        else:
            problems.append(f"{where}: field {name!r} is not in the YANG model")
    return problems
