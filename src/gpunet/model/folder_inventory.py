"""Read a plain inventory folder fast, with the answers Ansible's own loader gives.

A plain folder is hosts.yml (or any .yml/.yaml/.json inventory files in the YAML inventory format)
plus group_vars/ and host_vars/. Ansible's loader spends most of its time tagging every YAML node
with its origin and templating every variable of every host; on an 8,192-host inventory that is
minutes. Here the files are parsed with libyaml (`yaml.CSafeLoader`), merged in Ansible's order
and only values that contain Jinja are handed to Ansible's templar.

What is reproduced (ansible-core 2.19, default configuration; the sources are
`ansible/plugins/inventory/yaml.py` `_parse_group`, `ansible/inventory/data.py`
`reconcile_inventory`, `ansible/inventory/group.py` `_walk_relationship`,
`ansible/vars/manager.py` `get_vars`, `ansible/parsing/dataloader.py` `find_vars_files`):

- groups: `all` and `ungrouped` first, groups and hosts in file order, top-level groups under
  `all`, hosts that are in no group in `ungrouped`, group depth = longest path from `all`;
- variables, lowest first: `all` vars from the inventory file, other groups' inventory vars,
  `group_vars/all`, other groups' `group_vars`, host vars from the inventory file, `host_vars`;
  groups sorted by (depth, `ansible_group_priority`, name); top-level keys replace;
- `group_vars/<name>` and `host_vars/<name>`: the first of `<name>`, `<name>.yml`, `<name>.yaml`,
  `<name>.json` that exists; a folder is read recursively in sorted order (hidden files and `~`
  backups skipped, files with no extension or one of those three);
- vault-encrypted files decrypted with Ansible's VaultLib; Jinja templated with Ansible's Templar.

Anything else raises Unhandled, and the caller uses Ansible's loader: inline `!vault` or `!unsafe`
values, host ranges (`node[01:10]`) or `host:port` keys, executable or non-YAML inventory files,
`plugin:` sources, a non-default `hash_behaviour`, `variable_precedence` or vars plugins, and every
file Ansible would reject (its error message is the one the operator should see).
"""

from __future__ import annotations

import functools
import json
import marshal
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from gpunet.model.errors import InventoryInvalidError, Problem
from gpunet.model.limit import hosts_matching
from gpunet.model.loader_errors import short_path, undecodable
from gpunet.model.parse_cache import ParseCache, cache_for
from gpunet.model.yaml_bounds import MAY_HOLD_ALIAS, YamlRefused, check_tree
from gpunet.progress import progress

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
INVENTORY_EXTENSIONS = (".yml", ".yaml", ".json")
VARS_EXTENSIONS = ("", ".yml", ".yaml", ".json")
GROUP_KEYS = ("vars", "children", "hosts")
JINJA_MARKERS = ("{{", "{%", "{#")
VAULT_HEADER = b"$ANSIBLE_VAULT"
RESOLVER_CACHE_SIZE = 200_000
DEFAULT_PRECEDENCE = [
    "all_inventory",
    "groups_inventory",
    "all_plugins_inventory",
    "all_plugins_play",
    "groups_plugins_inventory",
    "groups_plugins_play",
]
# Variables Ansible computes per host or per run rather than reading them from the inventory.
MAGIC_VARIABLES = frozenset(
    {"inventory_hostname", "inventory_hostname_short", "group_names", "inventory_file", "inventory_dir"}
)


class Unhandled(Exception):
    """The source is not a plain folder this module reproduces exactly: use Ansible's loader."""


@dataclass
class Group:
    name: str
    vars: dict[str, Any] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    depth: int = 0
    priority: int = 1


@dataclass
class FolderInventory:
    """Groups and each host's merged, not yet templated, variables."""

    groups: dict[str, list[str]]
    host_groups: dict[str, list[str]]
    variables: dict[str, dict[str, Any]]
    skipped_files: tuple[str, ...] = ()
    # Whether any file read holds Jinja; when none does, no value needs a look.
    has_jinja: bool = True

    def templated(self, host: str, keys: Iterable[str]) -> dict[str, Any]:
        """`keys` of `host`'s variables with Jinja evaluated by Ansible's templar where present."""
        own = self.variables[host]
        values = {key: own[key] for key in keys if key in own}
        if not self.has_jinja:
            return values
        jinja = {key: value for key, value in values.items() if _has_jinja(value)}
        if jinja:
            values.update(_template(jinja, self.context(host)))
        return values

    def context(self, host: str) -> dict[str, Any]:
        """The host's variables plus the magic variables a value may refer to."""
        return {**self.variables[host], "groups": self.groups, "omit": "__omit_place_holder__"}


def is_plain_source(source: Path) -> bool:
    """Whether `source` looks like a folder (or YAML file) this module handles; cheap, no parsing."""
    try:
        _inventory_files(source)
    except Unhandled:
        return False
    return True


def read_folder(
    source: Path,
    vault: Any | None = None,
    *,
    limit: str | None = None,
    hosts_of: Iterable[str] | None = None,
) -> FolderInventory:
    """Read `source`; `vault` is an Ansible VaultLib with secrets, or None to skip vault files.

    `limit` (an Ansible host pattern) keeps only the hosts it selects, in groups too; `hosts_of`
    names the groups whose hosts' variables are read (default: every host). As with Ansible, a
    variables file no selected host needs is not read (nor listed as skipped when vaulted).
    Raises Unhandled when Ansible's loader must be used instead.
    """
    _require_default_configuration()
    files = _inventory_files(source)
    reader = _FileReader(vault, cache_for(source))
    if limit is None:  # a limited read needs only some of the files
        reader.parse_ahead(source if source.is_dir() else source.parent)
    groups: dict[str, Group] = {"all": Group("all"), "ungrouped": Group("ungrouped", depth=1)}
    _add_child(groups, "all", "ungrouped")
    host_vars: dict[str, dict[str, Any]] = {}
    host_memberships: dict[str, list[str]] = {}
    for path in files:
        data = reader.read(path)
        if not isinstance(data, dict) or not data or "plugin" in data:
            raise Unhandled(f"{path}: not a YAML inventory")
        for name, definition in data.items():
            _parse_group(groups, host_vars, host_memberships, str(name), definition, path)
    _reconcile(groups, host_memberships)

    basedir = source if source.is_dir() else source.parent
    ordered_groups = {name: _descendant_hosts(groups, name) for name in groups}
    selected = set(host_vars) if limit is None else hosts_matching(ordered_groups, limit)
    if limit is not None:
        ordered_groups = {name: [h for h in hosts if h in selected] for name, hosts in ordered_groups.items()}
    if hosts_of is not None:
        selected &= {host for name in hosts_of for host in ordered_groups.get(name, ())}

    def group_file(name: str) -> dict[str, Any]:
        return reader.read_vars(basedir / "group_vars", name)

    variables: dict[str, dict[str, Any]] = {}
    host_groups: dict[str, list[str]] = {}
    for host, own_vars in progress(list(host_vars.items()), "reading inventory: host"):
        if host not in selected:
            continue
        ancestors = _ancestors(groups, host_memberships[host])
        sorted_groups = sorted(
            (groups[name] for name in ancestors if name != "all"),
            key=lambda g: (g.depth, g.priority, g.name),
        )
        merged: dict[str, Any] = dict(groups["all"].vars)
        for group in sorted_groups:
            merged.update(group.vars)
        merged.update(group_file("all"))
        for group in sorted_groups:
            merged.update(group_file(group.name))
        merged.update(own_vars)
        merged.update(
            inventory_hostname=host,
            inventory_hostname_short=host.split(".")[0],
            group_names=sorted(g.name for g in sorted_groups),
        )
        merged.update(reader.read_vars(basedir / "host_vars", host))
        variables[host] = merged
        host_groups[host] = [g.name for g in sorted_groups]
    reader.cache.flush()
    return FolderInventory(
        groups=ordered_groups,
        host_groups=host_groups,
        variables=variables,
        skipped_files=tuple(sorted(reader.skipped_files)),
        has_jinja=reader.has_jinja,
    )


def _require_default_configuration() -> None:
    import ansible.constants as C

    if C.DEFAULT_HASH_BEHAVIOUR != "replace":
        raise Unhandled("hash_behaviour is not replace")
    if list(C.VARIABLE_PRECEDENCE) != DEFAULT_PRECEDENCE:
        raise Unhandled("variable_precedence is not the default")
    if list(C.VARIABLE_PLUGINS_ENABLED) != ["host_group_vars"] or C.RUN_VARS_PLUGINS != "demand":
        raise Unhandled("vars plugins other than host_group_vars")
    if C.DEFAULT_VARS_PLUGIN_PATH and any(Path(p).is_dir() for p in C.DEFAULT_VARS_PLUGIN_PATH):
        raise Unhandled("vars plugin folders configured")


def _inventory_files(source: Path) -> list[Path]:
    """The files Ansible parses as inventory, each of which must be a plain YAML inventory."""
    if source.is_file():
        files = [source]
    elif source.is_dir():
        if (source / "vars_plugins").exists():
            raise Unhandled("vars_plugins folder")
        files = _folder_inventory_files(source, _ignored_names())
    else:
        raise Unhandled(f"{source}: not a file or folder")
    if not files:
        raise Unhandled("no inventory file")
    for path in files:
        if path.suffix not in INVENTORY_EXTENSIONS or os.access(path, os.X_OK):
            raise Unhandled(f"{path}: not a plain YAML inventory file")
    return [path.absolute() for path in files]


def _ignored_names() -> re.Pattern[str]:
    """Ansible's InventoryManager.parse_source skips these names in an inventory folder."""
    import ansible.constants as C

    return re.compile(
        "|".join(
            [r"^\.", "^host_vars$", "^group_vars$", "^vars_plugins$"]
            + list(C.INVENTORY_IGNORE_PATTERNS)
            + [re.escape(ext) + "$" for ext in C.INVENTORY_IGNORE_EXTS]
        )
    )


def _folder_inventory_files(folder: Path, ignored: re.Pattern[str]) -> list[Path]:
    """Every file Ansible tries as an inventory source; sub-folders are read recursively."""
    found: list[Path] = []
    for name in sorted(os.listdir(folder)):
        if ignored.search(name):
            continue
        path = folder / name
        found.extend(_folder_inventory_files(path, ignored) if path.is_dir() else [path])
    if not found:
        # Ansible fails a folder with no inventory file in it (gpunet sets
        # INVENTORY_ANY_UNPARSED_IS_FAILED); its message says so best.
        raise Unhandled(f"{folder}: no inventory file")
    return found


def _parse_group(
    groups: dict[str, Group],
    host_vars: dict[str, dict[str, Any]],
    memberships: dict[str, list[str]],
    name: str,
    definition: Any,
    path: Path,
) -> str:
    """One group of a YAML inventory, as ansible's yaml inventory plugin reads it."""
    if definition is not None and not isinstance(definition, dict):
        raise Unhandled(f"{name}: not a group definition")
    group = groups.setdefault(name, Group(name))
    if definition is None:
        return name
    for key, section in definition.items():
        if key not in GROUP_KEYS or not isinstance(section, dict | type(None)):
            raise Unhandled(f"{name}: unexpected {key!r}")
        if section is None:
            continue
        if key == "vars":
            for var, value in section.items():
                _set_group_variable(group, str(var), value)
        elif key == "children":
            for child, child_definition in section.items():
                child_name = _parse_group(groups, host_vars, memberships, str(child), child_definition, path)
                _add_child(groups, name, child_name)
        else:
            for host, variables in section.items():
                if not isinstance(host, str) or "[" in host or ":" in host:
                    raise Unhandled(f"host pattern {host!r}")
                if variables is not None and not isinstance(variables, dict):
                    raise Unhandled(f"{host}: variables are not a mapping")
                if host not in host_vars:
                    host_vars[host] = {"inventory_file": str(path), "inventory_dir": str(path.parent)}
                    memberships[host] = []
                if name not in memberships[host]:
                    memberships[host].append(name)
                    group.hosts.append(host)
                host_vars[host].update(variables or {})
    return name


def _set_group_variable(group: Group, key: str, value: Any) -> None:
    if key == "ansible_group_priority":
        group.priority = int(value)
    else:
        group.vars[key] = value


def _add_child(groups: dict[str, Group], parent: str, child: str) -> None:
    if parent == child:
        raise Unhandled(f"group {parent} is its own child")
    if child in groups[parent].children:
        return
    groups[parent].children.append(child)
    groups[child].parents.append(parent)
    _deepen(groups, child, groups[parent].depth + 1, set())


def _deepen(groups: dict[str, Group], name: str, depth: int, seen: set[str]) -> None:
    if name in seen:
        raise Unhandled(f"group loop at {name}")
    group = groups[name]
    if depth > group.depth:
        group.depth = depth
    for child in group.children:
        _deepen(groups, child, group.depth + 1, seen | {name})


def _reconcile(groups: dict[str, Group], memberships: dict[str, list[str]]) -> None:
    """Top-level groups join `all`; hosts in no group join `ungrouped` (Ansible's reconcile)."""
    for name in list(groups):
        if name != "all" and not groups[name].parents:
            _add_child(groups, "all", name)
    for host, member_of in memberships.items():
        if "ungrouped" in member_of and set(member_of) - {"all", "ungrouped"}:
            member_of.remove("ungrouped")
            groups["ungrouped"].hosts.remove(host)
        elif not set(member_of) - {"all"}:
            member_of.append("ungrouped")
            groups["ungrouped"].hosts.append(host)


def _ancestors(groups: dict[str, Group], member_of: list[str]) -> set[str]:
    found: set[str] = set()
    pending = list(member_of)
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending.extend(groups[name].parents)
    return found


def _descendant_hosts(groups: dict[str, Group], name: str) -> list[str]:
    """Hosts of a group and its descendants in Ansible's order: the group, its children, then
    each further generation (Ansible walks later generations as sets; here in file order)."""
    ordered = [name, *groups[name].children]
    seen = {name, *groups[name].children}
    generation = list(groups[name].children)
    while generation:
        following = []
        for group in generation:
            for child in groups[group].children:
                if child not in seen:
                    seen.add(child)
                    ordered.append(child)
                    following.append(child)
        generation = following
    return list(dict.fromkeys(host for group in ordered for host in groups[group].hosts))


class _FileReader:
    """Parses each variables file once (a group_vars file is shared by every host in the group)."""

    def __init__(self, vault: Any | None, cache: ParseCache) -> None:
        self.vault = vault
        self.cache = cache
        self.skipped_files: set[str] = set()
        self.has_jinja = False
        self._parsed: dict[Path, Any] = {}
        self._vars: dict[tuple[Path, str], dict[str, Any]] = {}
        self._parsed_ahead: dict[Path, bytes] = {}

    def parse_ahead(self, basedir: Path) -> None:
        """Have worker processes parse a large folder's variables files (model/parse_workers.py)
        when the parse cache holds nothing to reuse; `read` still reads each file itself."""
        from gpunet.model import parse_workers

        if not self.cache.is_empty or not parse_workers.workers(parse_workers.MIN_FILES):
            return  # a warm cache answers most files faster than a worker would
        paths = [
            path
            for sub in ("host_vars", "group_vars")
            if (basedir / sub).is_dir()
            for path in _folder_vars_files(basedir / sub)
        ]
        self._parsed_ahead = parse_workers.parse_ahead(paths, parse_workers.workers(len(paths)))

    def read_vars(self, folder: Path, name: str) -> dict[str, Any]:
        if (folder, name) not in self._vars:
            self._vars[folder, name] = self._merge_vars(folder, name)
        return self._vars[folder, name]

    def _merge_vars(self, folder: Path, name: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for path in _vars_files(folder, name):
            data = self.read(path)
            if data in (None, {}):
                continue
            if not isinstance(data, dict):
                raise Unhandled(f"{path}: not a mapping")
            merged.update(data)
        return merged

    def read(self, path: Path) -> Any:
        if path not in self._parsed:
            self._parsed[path] = self._parse(path)
        return self._parsed[path]

    def _parse(self, path: Path) -> Any:
        raw = path.read_bytes()
        if raw.startswith(VAULT_HEADER):
            if self.vault is None:
                self.skipped_files.add(str(path))
                return {}
            raw = self._decrypt(raw, path)
            # Decrypted secrets are never written to the parse cache.
            load = _load_yaml
        else:
            blob = self._parsed_ahead.pop(path, None)
            parse = _load_yaml if blob is None else (lambda _text: marshal.loads(blob))
            load = functools.partial(self.cache.parse, raw, parse=parse)
        text = _decoded(raw, path)
        try:
            try:
                data = json.loads(text) if looks_like_json(text) else load(text)
            except YamlRefused:
                raise
            except (ValueError, RecursionError):
                data = load(text)
        except YamlRefused as refused:
            where = f"{short_path(str(path))}:{refused.line}" if refused.line else short_path(str(path))
            raise InventoryInvalidError([Problem(where, str(refused))]) from None
        if any(marker in text for marker in JINJA_MARKERS):
            data = _trust_templates(data)
            self.has_jinja = True
        return data

    def _decrypt(self, raw: bytes, path: Path) -> bytes:
        from ansible.errors import AnsibleError

        try:
            return bytes(self.vault.decrypt(raw))
        except AnsibleError:
            raise Unhandled(f"{path}: cannot decrypt") from None  # Ansible names the cause


def looks_like_json(text: str) -> bool:
    """Read with json.loads first (YAML only where that fails), as Ansible's loader does."""
    return text.lstrip()[:1] in ("{", "[")


def _decoded(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InventoryInvalidError([Problem(short_path(str(path)), undecodable(raw, error))]) from None


def _load_yaml(text: str) -> Any:
    """YAML 1.1 as PyYAML's SafeLoader reads it (Ansible's loader is built on it), about three
    times faster: libyaml composes the node tree, plain scalars are resolved through a cache, and
    nodes of the common tags become Python values directly. Any other tag (timestamps, merge
    keys, binary, sets) goes through SafeLoader's own constructor."""
    try:
        node = yaml.compose(text, Loader=_CachingResolverLoader)
        if node is None:
            return None
        # Aliases are measured before anything walks them (yaml_bounds); so are the files
        # SafeLoader's constructor reads, for their duplicate keys.
        checked = MAY_HOLD_ALIAS.search(text) is not None
        if checked:
            check_tree(node)
        try:
            return _value(node)
        except (_UncommonNode, TypeError, RecursionError):
            if not checked:
                check_tree(node)
            try:
                return yaml.load(text, Loader=YAML_LOADER)
            except RecursionError:
                raise YamlRefused("YAML nested too deeply to read") from None
    except yaml.YAMLError as error:
        # Tags such as !vault and !unsafe, and syntax errors: Ansible says it best.
        raise Unhandled(str(error).splitlines()[0]) from None


class _CachingResolverLoader(YAML_LOADER):  # type: ignore[misc, valid-type]
    """Resolves a plain scalar's implicit tag once per distinct value: port names, speeds and keys
    repeat thousands of times. The tag of a plain scalar depends on its text alone."""

    _tags: ClassVar[dict[str, str]] = {}

    # SafeLoader has no path resolvers, so the composer's per-node bookkeeping for them is idle.
    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is ScalarNode and implicit[0]:
            tags = _CachingResolverLoader._tags
            tag = tags.get(value)
            if tag is None:
                if len(tags) > RESOLVER_CACHE_SIZE:
                    tags.clear()
                tag = tags[value] = super().resolve(kind, value, implicit)
            return tag
        return super().resolve(kind, value, implicit)


def _key(key: Any) -> Any:
    return sys.intern(key) if type(key) is str else key


class _UncommonNode(Exception):
    """A node _value leaves to SafeLoader's constructor."""


_SCALARS = SafeConstructor()


def _value(node: Any) -> Any:
    kind = type(node)
    if kind is ScalarNode:
        tag = node.tag
        if tag == "tag:yaml.org,2002:str":
            return node.value
        if tag == "tag:yaml.org,2002:int":
            return _SCALARS.construct_yaml_int(node)
        if tag == "tag:yaml.org,2002:bool":
            return _SCALARS.construct_yaml_bool(node)
        if tag == "tag:yaml.org,2002:null":
            return None
        if tag == "tag:yaml.org,2002:float":
            return _SCALARS.construct_yaml_float(node)
    elif kind is MappingNode and node.tag == "tag:yaml.org,2002:map":
        # Keys repeat across thousands of files (name, speed_gbps, peer: 1.3 million times each at
        # 262,144 GPUs): one string each, which marshal also stores once in the parse cache.
        mapping = {_key(_value(key)): _value(value) for key, value in node.value}
        if len(mapping) != len(node.value):
            check_tree(node)  # raises, naming the key given twice and its line
        return mapping
    elif kind is SequenceNode and node.tag == "tag:yaml.org,2002:seq":
        return [_value(item) for item in node.value]
    raise _UncommonNode(node.tag)


def _vars_files(folder: Path, name: str) -> list[Path]:
    """Ansible's DataLoader.find_vars_files: the first existing name, a folder read recursively."""
    if not folder.is_dir():
        return []
    for extension in VARS_EXTENSIONS:
        path = folder / f"{name}{extension}"
        if path.is_dir():
            return _folder_vars_files(path)
        if path.exists():
            return [path]
    return []


def _folder_vars_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") or name.endswith("~"):
            continue
        path = folder / name
        extension = os.path.splitext(name)[1]
        if path.is_dir() and not extension:
            found.extend(_folder_vars_files(path))
        elif path.is_file() and extension in VARS_EXTENSIONS:
            found.append(path)
    return found


def _has_jinja(value: Any) -> bool:
    if isinstance(value, str):
        return any(marker in value for marker in JINJA_MARKERS)
    if isinstance(value, Mapping):
        return any(_has_jinja(k) or _has_jinja(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_jinja(v) for v in value)
    return False


def _trust_templates(value: Any) -> Any:
    """Mark strings with Jinja as templates, as Ansible does for variables files."""
    if isinstance(value, str):
        if any(marker in value for marker in JINJA_MARKERS):
            from ansible.template import trust_as_template

            return trust_as_template(value)
        return value
    if isinstance(value, dict):
        return {_trust_templates(k): _trust_templates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_trust_templates(v) for v in value]
    return value


def _template(values: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    from ansible.errors import AnsibleError
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar

    try:
        return Templar(loader=DataLoader(), variables=context).template(values)
    except AnsibleError as error:
        # An undefined name may be a magic variable this module does not provide; Ansible's
        # loader either knows it or reports the error the way the operator is used to.
        raise Unhandled(f"templating: {error}") from None
