"""Every way into a role reads only variables that exist there.

An entry point is a role's tasks/main.yml or a task file some playbook, role or Molecule scenario
enters with `include_role`/`import_role` `tasks_from`. Walking each one in task order (blocks,
`include_tasks`/`import_tasks` followed, handlers it notifies last), every template in task arguments,
`when`/`changed_when`/`failed_when`/`until`/`loop`, task and block `vars`, the role's defaults and vars
and the files its `template` tasks render is parsed with Jinja (with Ansible's extensions), and each
variable it reads must be one of: the role's defaults and vars/main.yml, the vars file `include_vars`
loads for the distribution's facts (rendered with Ansible's templar), a fact or magic variable, a
`register` or `set_fact` of an earlier task, the loop variable, or an inventory input on INPUTS below.
A name read only behind `is defined` or `| default(...)` is not required. Parsing instead of
evaluating also covers the branches a `when` would skip on this distribution.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from jinja2 import Environment, meta, nodes

from tests.conftest import REPO_ROOT
from tests.unit.roles.distro_facts import DISTROS, facts
from tests.unit.roles.templar import render_value, role_defaults, trusted

ROLES = REPO_ROOT / "roles"
SEARCHED = ("playbooks", "roles", "molecule", "site.yml")

# Genuine inventory inputs: read by a role without a default on purpose, each with why it is an input.
INPUTS: dict[str, str] = {
    # The model the inventory check (playbooks/preflight.yml) validates and the roles derive their
    # defaults from; docs/inventory.md. A default in the role would hide a missing inventory.
    "gpunet_fabric": "the fabric model, group_vars/all (docs/inventory.md)",
    "gpunet_nics": "a host's NICs, host_vars (docs/inventory.md)",
    "gpunet_hardware": "a host's hardware model, host_vars (docs/inventory.md)",
    "gpunet_gpus": "a host's GPU count, host_vars (docs/inventory.md)",
    "gpunet_platform": "a switch's OS, host_vars of every switch (docs/inventory.md)",
    # Connection variables of a switch: verify_switch's README lists them as its inputs.
    "ansible_host": "the switch's address, inventory (verify_switch README)",
    "ansible_port": "the switch's SSH port, inventory (verify_switch README)",
    "ansible_user": "the login user, inventory (verify_switch, verify_traffic README)",
    "ansible_password": "the switch's password, vault (verify_switch README)",
}

# What Ansible itself defines for every task: magic variables, and facts (the roles read facts as
# ansible_facts[...]; the injected ansible_<fact> names are allowed too).
MAGIC = {
    "ansible_facts", "ansible_check_mode", "ansible_diff_mode", "ansible_managed", "ansible_version",
    "ansible_play_hosts", "ansible_play_hosts_all", "ansible_play_batch", "ansible_playbook_python",
    "ansible_inventory_sources", "ansible_config_file", "ansible_loop", "ansible_parent_role_names",
    "ansible_role_names", "ansible_run_tags", "ansible_skip_tags", "ansible_forks", "ansible_verbosity",
    "group_names", "groups", "hostvars", "inventory_hostname", "inventory_hostname_short", "inventory_dir",
    "omit", "play_hosts", "playbook_dir", "role_name", "role_path", "ansible_search_path", "ansible_env",
    "ansible_connection", "ansible_python_interpreter", "ansible_become", "ansible_play_name",
    # Jinja's and Ansible's template globals.
    "lookup", "query", "q", "now", "undef", "range", "dict", "lipsum", "cycler", "joiner", "namespace",
}  # fmt: skip

EXPRESSION_KEYS = ("when", "changed_when", "failed_when", "until")
TEMPLATE_KEYS = (
    "loop", "with_items", "with_list", "with_dict", "with_fileglob", "delegate_to", "become_user",
    "environment", "args", "name", "notify", "run_once", "ignore_errors", "check_mode",
)  # fmt: skip
TASK_KEYWORDS = {
    "name", "when", "changed_when", "failed_when", "until", "retries", "delay", "register", "notify",
    "loop", "loop_control", "with_items", "with_list", "with_dict", "with_fileglob", "vars", "tags",
    "become", "become_user", "delegate_to", "run_once", "check_mode", "ignore_errors", "no_log", "args",
    "environment", "listen", "block", "rescue", "always", "diff", "throttle", "timeout", "any_errors_fatal",
    "delegate_facts", "ignore_unreachable", "local_action", "module_defaults", "collections",
}  # fmt: skip
INCLUDES = ("ansible.builtin.include_tasks", "ansible.builtin.import_tasks", "include_tasks", "import_tasks")


class AnyName(dict):
    """Every filter and test name exists: the analysis compiles templates but never runs them."""

    def __contains__(self, name: object) -> bool:
        return True

    def __missing__(self, name: str) -> Any:
        return lambda *args, **kwargs: None

    def get(self, name: str, default: Any = None) -> Any:
        return self[name]


# The extensions are the ones Ansible's templar enables.
JINJA = Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])
JINJA.filters = AnyName(JINJA.filters)
JINJA.tests = AnyName(JINJA.tests)
ROLE_INCLUDES = ("ansible.builtin.include_role", "ansible.builtin.import_role", "include_role", "import_role")


def entry_points() -> list[tuple[str, str]]:
    """(role, task file) for every main.yml and every file entered with tasks_from anywhere."""
    found = {(path.parent.parent.name, "main.yml") for path in ROLES.glob("*/tasks/main.yml")}
    for top in SEARCHED:
        root = REPO_ROOT / top
        for path in [root] if root.is_file() else [*root.rglob("*.yml"), *root.rglob("*.yaml")]:
            text = path.read_text()
            if "tasks_from" not in text:
                continue
            for node in walk_yaml(yaml.safe_load(text)):
                for key in ROLE_INCLUDES:
                    spec = node.get(key)
                    if isinstance(spec, dict) and spec.get("tasks_from"):
                        name = str(spec["tasks_from"])
                        found.add((spec["name"], name if name.endswith(".yml") else f"{name}.yml"))
    return sorted(found)


def walk_yaml(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        return [data] + [d for value in data.values() for d in walk_yaml(value)]
    if isinstance(data, list):
        return [d for value in data for d in walk_yaml(value)]
    return []


@dataclass
class Finding:
    where: str
    name: str

    def __str__(self) -> str:
        return f"{self.where}: {self.name}"


@dataclass
class Scope:
    role: Path
    known: set[str]
    values: dict[str, Any]  # what the templar may render include_vars file names with
    findings: list[Finding] = field(default_factory=list)
    notified: set[str] = field(default_factory=set)

    def copy(self) -> Scope:
        return Scope(self.role, set(self.known), dict(self.values), self.findings, self.notified)


def read_names(text: str) -> tuple[set[str], set[str]]:
    """(variables a template reads, those read only behind `is defined` or `| default`)."""
    with warnings.catch_warnings():
        # Plain Jinja decodes string literals with unicode-escape and warns on a regex's `\\s`;
        # Ansible's templar reads them as written (roles' regexes rely on it).
        warnings.simplefilter("ignore", DeprecationWarning)
        ast = JINJA.parse(text)
    read = set(meta.find_undeclared_variables(ast))
    guarded = set()
    for test in ast.find_all(nodes.Test):
        if test.name in ("defined", "undefined") and (root := root_name(test.node)):
            guarded.add(root)
    for flt in ast.find_all(nodes.Filter):
        if flt.name in ("default", "d") and flt.node is not None and (root := root_name(flt.node)):
            guarded.add(root)
    return read, guarded


def root_name(node: nodes.Node) -> str | None:
    while isinstance(node, (nodes.Getattr, nodes.Getitem)):
        node = node.node
    return node.name if isinstance(node, nodes.Name) else None


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in strings(key) + strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def as_expressions(value: Any) -> list[str]:
    """A bare-expression keyword (`when:` and friends) as templates."""
    if isinstance(value, bool) or value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return ["{{ " + str(item) + " }}" for item in items if not isinstance(item, bool)]


def check(scope: Scope, where: str, templates: list[str], extra: set[str] = frozenset()) -> None:
    read: set[str] = set()
    guarded: set[str] = set()
    for text in templates:
        if "{{" not in text and "{%" not in text:
            continue
        names, guards = read_names(text)
        read |= names
        guarded |= guards
    for name in sorted(read - guarded - scope.known - extra - set(INPUTS)):
        scope.findings.append(Finding(where, name))


def guarded_names(task: dict[str, Any]) -> set[str]:
    texts = strings({k: v for k, v in task.items() if k not in ("block", "rescue", "always")})
    texts += [e for key in EXPRESSION_KEYS for e in as_expressions(task.get(key))]
    module, argument = module_of(task)
    if module in ("ansible.builtin.assert", "assert"):
        texts += as_expressions(argument.get("that"))
    guarded: set[str] = set()
    for text in texts:
        if "{{" in text or "{%" in text:
            guarded |= read_names(text)[1]
    return guarded


def never_runs(scope: Scope, task: dict[str, Any]) -> bool:
    """A `when` that the distribution's facts and the role's own values already make false (the other
    OS family's task file); anything it cannot evaluate without a run counts as possible."""
    for expression in as_expressions(task.get("when")):
        if not read_names(expression)[0] <= set(scope.values):
            continue  # it reads a registered result, a fact set at run time or an input
        try:
            value = render_value("{{ (" + expression[3:-3] + ") | bool }}", scope.values)
        except Exception:
            continue
        if value is False:
            return True
    return False


def module_of(task: dict[str, Any]) -> tuple[str, Any]:
    for key, value in task.items():
        if key not in TASK_KEYWORDS:
            return key, value
    return "", None


def load_vars_file(scope: Scope, task: dict[str, Any], argument: Any) -> None:
    """include_vars: the file it loads on this distribution joins what is known."""
    name = argument.get("file") if isinstance(argument, dict) else argument
    try:
        rendered = str(render_value(name, scope.values | trusted(task.get("vars") or {})))
    except Exception:  # an unrenderable name: every vars file of the role may be the one
        paths = sorted((scope.role / "vars").glob("*.yml"))
    else:
        path = Path(rendered)
        paths = [path if path.is_absolute() else scope.role / "vars" / rendered]
    for path in paths:
        if path.exists():
            loaded = trusted(yaml.safe_load(path.read_text()) or {})
            scope.known |= set(loaded)
            scope.values |= loaded


def walk(scope: Scope, path: Path, tasks: list[dict[str, Any]], inherited: set[str], label: str) -> None:
    for index, task in enumerate(tasks or []):
        where = f"{label} #{index + 1} {task.get('name', '')!r}"
        if never_runs(scope, task):
            continue
        # A name the task tests with `is defined` (or reads with a default) anywhere in it, e.g. in
        # its `when`, is not required by the rest of the task either.
        local = set(inherited) | set(task.get("vars") or {}) | guarded_names(task)
        loop_control = task.get("loop_control") or {}
        if any(key in task for key in ("loop", "with_items", "with_list", "with_dict", "with_fileglob")):
            local |= {loop_control.get("loop_var", "item"), loop_control.get("index_var", "")} - {""}
        check(scope, where, strings(task.get("vars") or {}), local)
        if "block" in task:
            check(scope, where, as_expressions(task.get("when")), local)
            for part in ("block", "rescue", "always"):
                walk(scope, path, task.get(part) or [], local, f"{label} {part}")
            continue
        module, argument = module_of(task)
        registered = {task["register"]} if task.get("register") else set()
        check(scope, where, as_expressions(task.get("when")), local)
        check(scope, where, [s for key in TEMPLATE_KEYS for s in strings(task.get(key))], local)
        # changed_when/failed_when/until read the task's own result.
        check(scope, where, [e for key in EXPRESSION_KEYS[1:] for e in as_expressions(task.get(key))],
              local | registered)  # fmt: skip
        if module in ("ansible.builtin.assert", "assert"):
            check(scope, where, as_expressions(argument.get("that")), local)
            check(scope, where, strings({k: v for k, v in argument.items() if k != "that"}), local)
        elif (
            module in ("ansible.builtin.debug", "debug") and isinstance(argument, dict) and "var" in argument
        ):
            check(scope, where, as_expressions(argument["var"]), local)
        elif module in ("ansible.builtin.include_vars", "include_vars"):
            check(scope, where, strings(argument), local)
            load_vars_file(scope, task, argument)
        else:
            check(scope, where, strings(argument), local)
        if module in ("ansible.builtin.template", "template") and isinstance(argument, dict):
            source = scope.role / "templates" / str(argument.get("src", ""))
            if source.is_file():
                check(scope, f"{where} template {source.name}", [source.read_text()], local)
        if module in INCLUDES:
            follow(scope, path, task, argument, local, where)
        if module in ("ansible.builtin.set_fact", "set_fact"):
            scope.known |= {key for key in argument if key not in ("cacheable",)}
        scope.known |= registered
        notify = task.get("notify") or []
        scope.notified |= set([notify] if isinstance(notify, str) else notify)


def follow(
    scope: Scope, path: Path, task: dict[str, Any], argument: Any, local: set[str], where: str
) -> None:
    """include_tasks/import_tasks: the file it names, or each file a templated name can be."""
    name = str(argument.get("file") if isinstance(argument, dict) else argument)
    if "{{" in name:
        pattern = re.sub(r"\{\{.*?\}\}", "*", name)
        targets = sorted(p for p in path.parent.glob(pattern) if p != path and p.name != "main.yml")
    else:
        targets = [path.parent / name]
    assert targets, f"{where}: includes {name}, which matches no task file"
    before = set(scope.known)
    learned: set[str] = set()
    for target in targets:
        branch = scope.copy()
        branch.known = set(before)
        walk(branch, target, yaml.safe_load(target.read_text()), local, f"{target.name}")
        learned |= branch.known
        scope.values |= branch.values
    scope.known |= learned


def handlers(role: Path) -> list[dict[str, Any]]:
    path = role / "handlers/main.yml"
    return (yaml.safe_load(path.read_text()) or []) if path.exists() else []


def check_entry(
    role_name: str, entry: str, distro: str, without: frozenset[str] = frozenset()
) -> list[Finding]:
    role = ROLES / role_name
    defaults = {name: value for name, value in role_defaults(role).items() if name not in without}
    role_vars_file = role / "vars/main.yml"
    role_vars = trusted(yaml.safe_load(role_vars_file.read_text()) or {}) if role_vars_file.exists() else {}
    distro_facts = facts(distro)
    magic_values = {"ansible_facts": distro_facts, "role_path": str(role), "inventory_hostname": "gpu01"}
    known = set(defaults) | set(role_vars) | MAGIC | {f"ansible_{fact}" for fact in distro_facts}
    scope = Scope(role, known, defaults | role_vars | magic_values)
    # Defaults and vars are templates too, rendered lazily where a task reads them.
    for source, values in (("defaults/main.yml", defaults), ("vars/main.yml", role_vars)):
        for name, value in values.items():
            check(scope, f"{source} {name}", strings(value))
    path = role / "tasks" / entry
    walk(scope, path, yaml.safe_load(path.read_text()), set(), entry)
    for handler in handlers(role):
        if handler.get("name") in scope.notified or handler.get("listen") in scope.notified:
            walk(scope, path, [handler], set(), "handlers/main.yml")
    return scope.findings


ENTRIES = entry_points()


def test_entry_points_include_every_tasks_from() -> None:
    # playbooks/slurm_healthcheck.yml enters slurm_healthcheck at slurm_conf on the controllers.
    assert ("slurm_healthcheck", "slurm_conf.yml") in ENTRIES
    assert all((ROLES / role / "tasks" / entry).is_file() for role, entry in ENTRIES)


@pytest.mark.parametrize("distro", sorted(DISTROS))
@pytest.mark.parametrize(("role", "entry"), ENTRIES)
def test_an_entry_point_reads_only_what_it_defines(role: str, entry: str, distro: str) -> None:
    findings = check_entry(role, entry, distro)
    assert not findings, f"roles/{role}/tasks/{entry} on {distro} reads undefined variables:\n" + "\n".join(
        f"  {finding}" for finding in findings
    )


def test_the_walk_finds_a_variable_only_another_entry_point_defines(tmp_path: Path) -> None:
    """The regression this guards against: a tasks_from file reading a fact main.yml sets."""
    role = tmp_path / "demo"
    (role / "tasks").mkdir(parents=True)
    (role / "defaults").mkdir()
    (role / "defaults/main.yml").write_text("demo_path: /etc/demo\n")
    (role / "tasks/main.yml").write_text(
        "- name: Decide\n  ansible.builtin.set_fact:\n    demo_mode: fast\n"
        "- name: Use\n  ansible.builtin.include_tasks: part.yml\n"
    )
    (role / "tasks/part.yml").write_text(
        "- name: Write\n  ansible.builtin.copy:\n    content: '{{ demo_mode }}'\n"
        "    dest: '{{ demo_path }}'\n"
        "  when: demo_other is defined or demo_flag | default(false)\n"
    )
    scope = Scope(role, set(role_defaults(role)) | MAGIC, {})
    walk(scope, role / "tasks/main.yml", yaml.safe_load((role / "tasks/main.yml").read_text()), set(), "main")
    assert scope.findings == []
    alone = Scope(role, set(role_defaults(role)) | MAGIC, {})
    walk(alone, role / "tasks/part.yml", yaml.safe_load((role / "tasks/part.yml").read_text()), set(), "part")
    assert [finding.name for finding in alone.findings] == ["demo_mode"]


@pytest.mark.parametrize(
    ("role", "entry", "knob", "where"),
    [
        ("slurm_healthcheck", "slurm_conf.yml", "slurm_healthcheck_interval", "slurm_conf.yml #1"),
        # behind `include_tasks` and a block: read in main.yml's node check install
        ("slurm_healthcheck", "main.yml", "slurm_healthcheck_python", "main.yml block #1"),
        # in a handler that slurmd_memlock.yml notifies
        ("slurm_healthcheck", "main.yml", "slurm_healthcheck_slurmd_restart", "handlers/main.yml"),
        # in a template a task renders
        ("rdma_tools", "main.yml", "rdma_tools_memlock_domains", "template gpunet-rdma-memlock.conf.j2"),
    ],
)
def test_a_knob_without_its_default_is_found(role: str, entry: str, knob: str, where: str) -> None:
    """The check is live on the real roles: drop one default and its readers are reported."""
    findings = check_entry(role, entry, "debian12", without=frozenset({knob}))
    assert findings and all(finding.name == knob for finding in findings)
    assert any(where in finding.where for finding in findings), [str(f) for f in findings]
