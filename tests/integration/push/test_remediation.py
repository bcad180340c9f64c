"""Declarative push over real SSH to the simulator, every platform: a change in the inventory
converges the switch's owned config to intended/ (removals included), a second push changes
nothing, config outside gpunet's scope is untouched, and a rejected removal rolls everything back.

Each scenario renders the prod inventory before and after one change (lossless priority, queue
share, ECN threshold, a queue removed, a port removed), pushes both onto a switch in its factory
state (gpunet.lab.switchsim.factory) with an operator's lines on top, and judges the switch by
the rendered lines themselves: every line intended/ has is on the switch, every line the change
dropped is gone, and every factory line is still there.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import shutil

import pytest

from gpunet.lab.switchsim.configtree import ConfigTree
from gpunet.lab.switchsim.storage import storage_rules
from gpunet.model.fabric import Fabric, Queue
from gpunet.netdev.errors import PushError
from gpunet.netdev.linediff import config_paths
from gpunet.netdev.push import push_switch
from gpunet.render import render_fabric
from tests.integration.push.conftest import SWITCH_OF_PLATFORM
from tests.integration.push.test_push import OPTIONS, connection, running

PLATFORMS = ["nxos", "eos", "cumulus", "sonic", "junos"]
INDENT = {"nxos": 2, "eos": 3}


def with_qos(fabric: Fabric, **changes) -> Fabric:
    return dataclasses.replace(fabric, qos=dataclasses.replace(fabric.qos, **changes))


def lossless_priority_4(fabric: Fabric) -> Fabric:
    queues = tuple(
        dataclasses.replace(q, traffic_class=4) if q.traffic_class == fabric.qos.lossless_priority else q
        for q in fabric.qos.queues
    )
    return with_qos(fabric, lossless_priority=4, queues=queues)


def queue_share(fabric: Fabric) -> Fabric:
    shares = {0: 30, fabric.qos.lossless_priority: 70}
    queues = tuple(
        dataclasses.replace(q, bandwidth_percent=shares[q.traffic_class]) if q.traffic_class in shares else q
        for q in fabric.qos.queues
    )
    return with_qos(fabric, queues=queues)


def ecn_threshold(fabric: Fabric) -> Fabric:
    ecn = dataclasses.replace(fabric.qos.ecn, min_threshold_kb=300, max_mark_probability=50)
    return with_qos(fabric, ecn=ecn)


def with_bulk_queue(fabric: Fabric) -> Fabric:
    """The prod queues plus a `bulk` queue (TC 1, 20 %): pushing prod after it removes a queue."""
    queues = tuple(
        dataclasses.replace(q, bandwidth_percent=20) if q.traffic_class == 0 else q for q in fabric.qos.queues
    )
    return with_qos(fabric, queues=(*queues, Queue("bulk", 1, 20, False)))


def without_last_port(fabric: Fabric, name: str) -> Fabric:
    switch = fabric.switches[name]
    switches = {**fabric.switches, name: dataclasses.replace(switch, ports=switch.ports[:-1])}
    return dataclasses.replace(fabric, switches=switches)


# (scenario, fabric before, fabric after): the push goes from the first to the second.
SCENARIOS = {
    "lossless-priority": (lambda f, n: f, lambda f, n: lossless_priority_4(f)),
    "queue-share": (lambda f, n: f, lambda f, n: queue_share(f)),
    "ecn-threshold": (lambda f, n: f, lambda f, n: ecn_threshold(f)),
    "remove-queue": (lambda f, n: with_bulk_queue(f), lambda f, n: f),
    "remove-port": (lambda f, n: f, without_last_port),
}

# Config gpunet does not own, typed by an operator before gpunet ever pushed.
FOREIGN = {
    # An operator's lines on top of the factory config (cli.yml): a port description merges into
    # the factory's port block; the rest is new.
    "nxos": ["interface Ethernet1/1", "  description keep-me", "interface loopback0",
             "  ip address 192.0.2.1/32", "ip route 0.0.0.0/0 192.0.2.1"],
    "eos": ["interface Ethernet1/1", "   description keep-me", "interface Loopback0",
            "   ip address 192.0.2.11/32", "ip route 0.0.0.0/0 192.0.2.1"],
    "cumulus": ["nv set interface swp1 description keep-me", "nv set router bgp autonomous-system 65001",
                "nv set qos pfc operator-profile switch-priority 5"],
    "junos": ["set system ntp server 192.0.2.1", "set interfaces et-0/0/0 description keep-me",
              "set class-of-service schedulers ops-sched transmit-rate percent 5"],
}  # fmt: skip
SONIC_FOREIGN = {
    "BGP_NEIGHBOR": {"192.0.2.2": {"asn": "65002"}},
    "BUFFER_PG": {"Ethernet200|3-4": {"profile": "ingress_lossless_profile"}},  # a port gpunet does not list
}


def seed(fleet, target, platform: str) -> None:
    """Put the foreign config on the simulator as if an operator had typed it (SONiC boots with its
    SKU's factory config_db: tests/integration/push/test_factory_state.py judges that part)."""

    def write() -> None:
        state = target.sim.state
        if platform == "sonic":
            for table, entries in SONIC_FOREIGN.items():
                for key, fields in entries.items():
                    state.config.setdefault(table, {})[key] = dict(fields)
            state.config["PORT"]["Ethernet0"]["description"] = "keep-me"
        elif platform in INDENT:  # typed into the factory config: a block typed again merges
            lines = [*state.config, *FOREIGN[platform]]
            state.config = ConfigTree.from_lines(lines, INDENT[platform], storage_rules(platform)).to_lines()
        else:
            state.config = [*state.config, *(line for line in FOREIGN[platform] if line not in state.config)]

    fleet.call(write)


def render_for(fabric: Fabric, name: str) -> str:
    return render_fabric(fabric)[name].config


def push_text(target, intended: str, backups, **kwargs):
    return push_switch(
        target.switch,
        intended,
        connection(),
        check_mode=False,
        backup_root=backups,
        options=OPTIONS,
        **kwargs,
    )


# Physical-layer state a push never takes down (docs/switch-push.md, "Breakouts stay").
PHYSICAL_TABLES = {"PORT", "BREAKOUT_CFG"}
BREAKOUT = re.compile(r"\blink breakout |\binterface breakout |\bchassis fpc ")


def assert_holds(config, intended: str, dropped_from: str, platform: str, factory=None) -> None:
    """Every intended line (SONiC: field) is on the switch; every one the change dropped is gone
    (SONiC: or back to what the factory config_db holds there, which the push never deletes)."""
    if platform == "sonic":
        now, before = json.loads(intended), json.loads(dropped_from)
        factory = factory or {}
        for table, entries in now.items():
            for key, fields in entries.items():
                assert config[table][key] == {**config[table][key], **fields}, f"{table}|{key}"
        for table, entries in before.items():
            for key, fields in entries.items():
                if key not in now.get(table, {}):
                    # A PORT entry is the port itself (config_db has no default to return it to);
                    # a cage's BREAKOUT_CFG is its physical layout, which the push keeps.
                    if table in PHYSICAL_TABLES:
                        assert config[table][key] == {**config[table][key], **fields}, (
                            f"{table}|{key} changed"
                        )
                    elif key in factory.get(table, {}):
                        assert config.get(table, {}).get(key) in (None, factory[table][key]), f"{table}|{key}"
                    else:
                        assert key not in config.get(table, {}), f"{table}|{key} left on the switch"
                else:
                    stock = factory.get(table, {}).get(key, {})
                    for field in set(fields) - set(now[table][key]):
                        left = config[table][key].get(field)
                        assert left in (None, stock.get(field)), f"{table}|{key}.{field}"
        return
    if platform in INDENT:
        indent = INDENT[platform]
        have = set(config_paths("\n".join(config), indent))
        want = config_paths(intended, indent)
        # A port's own line stays (the port exists); gpunet's statements under it must go.
        gone = {p for p in set(config_paths(dropped_from, indent)) - set(want) if len(p) > 1}
    else:
        have = {line.strip() for line in config}
        want = [line.strip() for line in intended.splitlines() if line.strip()]
        gone = {line.strip() for line in dropped_from.splitlines() if line.strip()} - set(want)
    assert [p for p in want if p not in have] == []
    # A cage's breakout is its physical layout: the push keeps it when the last port goes.
    kept = {p for p in gone if BREAKOUT.search(p if isinstance(p, str) else " ".join(p))}
    assert sorted(kept - have) == []
    assert sorted(p for p in gone - kept if p in have) == []


def assert_foreign_untouched(config, platform: str) -> None:
    if platform == "sonic":
        assert config["BGP_NEIGHBOR"] == SONIC_FOREIGN["BGP_NEIGHBOR"]
        assert config["BUFFER_PG"]["Ethernet200|3-4"] == SONIC_FOREIGN["BUFFER_PG"]["Ethernet200|3-4"]
        assert config["PORT"]["Ethernet0"]["description"] == "keep-me"
        return
    if platform in INDENT:
        foreign = config_paths("\n".join(FOREIGN[platform]), INDENT[platform])
        have = config_paths("\n".join(config), INDENT[platform])
        assert [p for p in foreign if p not in have] == []
        # Whole foreign blocks are byte-for-byte what the operator typed, in order.
        tail = FOREIGN[platform][2:]
        start = config.index(tail[0])
        assert config[start : start + len(tail)] == tail
    else:
        order = [line for line in config if line in FOREIGN[platform]]
        assert order == FOREIGN[platform]


def assert_factory_kept(config, factory, platform: str) -> None:
    """The CLI OSes boot with their factory lines (factory/cli.yml); none is gpunet's, so every one
    is still there after the change, whichever it was (SONiC: assert_holds judges its entries)."""
    if platform != "sonic":
        assert [line for line in factory if line not in config] == []


@pytest.fixture(scope="module")
def first_pushes(tmp_path_factory) -> dict:
    """Per (platform, config before the change): where seeding a fresh switch and pushing that
    config onto it leaves the simulator, its factory startup config and the push's backups. Four
    of the five scenarios start from prod itself, so each platform's first push runs once."""
    return {"backups": tmp_path_factory.mktemp("first-pushes"), "pushed": {}}


def pushed_before(fleet, start, first_pushes, backups, platform: str, before: str):
    """A fresh simulator for `platform` as the first push of `before` left one: seeded with the
    operator's lines, `before` pushed onto it (and judged, once per module), then the simulator's
    state and what the push added to it deep-copied onto this case's own switch, the backups copied
    into this case's folder. Returns the target and the factory startup config."""
    target, key = start(platform), (platform, before)
    if key not in first_pushes["pushed"]:
        first, folder = start(platform), first_pushes["backups"] / f"{len(first_pushes['pushed'])}"
        seed(fleet, first, platform)
        factory = fleet.call(lambda: json.loads(json.dumps(first.sim.state.startup)))
        assert push_text(first, before, folder).changed
        assert_holds(running(fleet, first), before, before, platform, factory)

        def snapshot() -> tuple[dict, dict]:
            sim, fresh = first.sim, set(vars(target.sim))
            assert not sim.state.pending_confirm and sim._timer is None and not sim.in_flight
            # What the push set on the simulator beyond its state (EOS sessions, NVUE revisions):
            # the attributes a switch just started does not have yet.
            added = {k: copy.deepcopy(v) for k, v in vars(sim).items() if k not in fresh}
            return {"state": copy.deepcopy(sim.state), "changed_once": sim.changed_once}, added

        first_pushes["pushed"][key] = (*fleet.call(snapshot), factory, folder)
    saved, added, factory, folder = first_pushes["pushed"][key]

    def restore() -> None:
        sim = target.sim
        sim.state = copy.deepcopy(saved["state"])
        sim.changed_once = saved["changed_once"]
        for attribute, value in added.items():
            setattr(sim, attribute, copy.deepcopy(value))
        sim.persist()

    fleet.call(restore)
    if folder.exists():
        shutil.copytree(folder, backups, symlinks=True, dirs_exist_ok=True)
    return target, copy.deepcopy(factory)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("platform", PLATFORMS)
def test_push_converges_to_intended(fleet, start, prod_fabric, backups, first_pushes, platform, scenario):
    name = SWITCH_OF_PLATFORM[platform]
    before_fabric, after_fabric = (make(prod_fabric, name) for make in SCENARIOS[scenario])
    before, after = render_for(before_fabric, name), render_for(after_fabric, name)
    assert before != after, "the scenario must change this switch's rendered config"
    target, factory = pushed_before(fleet, start, first_pushes, backups, platform, before)
    assert_holds(running(fleet, target), before, before, platform, factory)

    result = push_text(target, after, backups)
    assert result.changed and result.message == "committed, confirmed and saved"
    config = running(fleet, target)
    assert_holds(config, after, before, platform, factory)
    assert_foreign_untouched(config, platform)
    assert_factory_kept(config, factory, platform)
    again = push_text(target, after, backups)
    assert (again.changed, again.diff) == (False, "")
    assert fleet.call(lambda: dict(target.sim.state.checkpoints)) == {}


# A removal line, as each OS's remediation writes it (SONiC: a JSON Patch `remove` operation).
REMOVAL = {
    "nxos": r"^no ",
    "eos": r"^no (?!priority$)",
    "cumulus": r"^nv unset ",
    "junos": r"^delete ",
    "sonic": r'"op": "remove"',
}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_rejected_removal_rolls_everything_back(fleet, start, prod_fabric, backups, platform):
    name = SWITCH_OF_PLATFORM[platform]
    target = start(platform, reject=REMOVAL[platform])
    assert push_text(target, target.intended, backups).changed  # a first push removes nothing
    before = running(fleet, target)
    with pytest.raises(PushError) as failure:
        push_text(target, render_for(lossless_priority_4(prod_fabric), name), backups)
    assert failure.value.config_state == "rolled back"
    assert str(failure.value).count(name) == 1, "the error names the switch once"
    assert running(fleet, target) == before
    assert fleet.call(lambda: dict(target.sim.state.checkpoints)) == {}


def test_nxos_at_its_checkpoint_limit_still_pushes(fleet, start, prod_fabric, backups):
    """Ten named checkpoints (NX-OS's maximum) are the operator's: gpunet uses a file checkpoint."""
    target = start("nxos")
    named = {f"operator-{n}": ["hostname x"] for n in range(10)}
    fleet.call(lambda: target.sim.state.checkpoints.update(copy.deepcopy(named)))
    assert push_text(target, target.intended, backups).changed
    assert fleet.call(lambda: dict(target.sim.state.checkpoints)) == named


def test_a_wrong_push_rule_is_caught_by_the_simulators_own_rules(
    fleet, start, prod_fabric, backups, monkeypatch
):
    """The simulator stores statements by its own vendor data (gpunet.lab.switchsim.storage), not
    the push's: a push that wrongly took Cumulus `switch-priority` (a set) for a one-value leaf
    sends no `nv unset` for priority 3, and the switch keeps it, so the push is seen to be wrong."""
    from gpunet.netdev import osdata

    correct = osdata._replace_key

    def wrong(platform: str, line: str) -> str | None:
        if platform == "cumulus" and " switch-priority " in line and " dscp " not in line:
            return line.rpartition(" ")[0]
        return correct(platform, line)

    monkeypatch.setattr(osdata, "_replace_key", wrong)
    target = start("cumulus")
    before, after = (
        target.intended,
        render_for(lossless_priority_4(prod_fabric), SWITCH_OF_PLATFORM["cumulus"]),
    )
    assert push_text(target, before, backups).changed
    assert push_text(target, after, backups).changed
    config = running(fleet, target)
    assert "nv set qos traffic-pool default-lossless switch-priority 3" in config
    with pytest.raises(AssertionError):
        assert_holds(config, after, before, "cumulus")
