"""SONiC (community), traditional buffer model: BUFFER_PROFILE per ASIC family from the SKU's own
pg_profile_lookup.ini, under gpunet's own profile names."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign
from gpunet.hardware import SwitchModel

# The stock config_db (buffers_config.j2) holds BUFFER_PG|<port>|3-4 and BUFFER_QUEUE|<port>|3-4.
STOCK_LOSSLESS_RANGE = (3, 4)
STOCK_EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
# ASIC types whose PORT_QOS_MAP carries pfc_to_pg_map (sonic-buildimage files/build_templates/qos_config.j2
# at 086b03bd, pfc_to_pg_map_supported_asics = ['mellanox', 'barefoot']); gpunet's buffer semantics names.
PFC_TO_PG_MAP_ASICS = ("mellanox",)
# DEVICE_METADATA|localhost.buffer_model of a model that does not name one (sonic-buildimage
# files/build_templates/init_cfg.json.j2: "traditional" unless the image builds with
# SONIC_BUFFER_MODEL=dynamic, as platform/mellanox/rules.mk does).
DEFAULT_BUFFER_MODEL = "traditional"
# Dynamic model: a lossless PG with profile "NULL" gets headroom computed by buffermgrd from speed, cable
# length and MTU (SONiC doc/qos/dynamically-headroom-calculation.md; sonic-buffer-pg.yang allows "NULL").
DYNAMIC_PG_PROFILE = "NULL"


class SonicDesign(PlatformDesign):
    name = "sonic"
    limits = PlatformLimits(max_mtu=9216, watchdog_interval_ms=200)  # SONiC PFC_WD POLL_INTERVAL default

    def speed(self, speed_gbps: int, lanes: int | None) -> str:
        return str(speed_gbps * 1000)  # Mb/s

    def breakout_parent(self, cage: str, cage_lanes: int) -> str | None:
        # BREAKOUT_CFG is keyed by the cage's unsplit port: Ethernet<first lane of the cage>.
        return f"Ethernet{(int(cage) - 1) * cage_lanes}"

    def profile_name(self, speed_gbps: int, mtu: int, cable_m: int, fabric_mtu: int) -> str | None:
        # Not pg_lossless_<speed>_<cable>_profile: buffermgrd and db_migrator treat that name as theirs.
        suffix = "" if mtu == fabric_mtu else f"_mtu{mtu}"
        return f"gpunet_lossless_{speed_gbps * 1000}_{cable_m}m{suffix}"

    def sizes_headroom(self, model: SwitchModel) -> bool:
        return buffer_model(model) == "dynamic"

    def headroom_rendered_as(self, port: dict[str, Any], model: SwitchModel) -> str:
        if buffer_model(model) == "dynamic":
            return f"computed by buffermgrd (dynamic model, BUFFER_PG profile {DYNAMIC_PG_PROFILE})"
        return f"BUFFER_PROFILE {port['pfc_profile']}"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        model = context.model
        semantics = model.sonic_buffer_semantics
        if semantics not in ("mellanox", "broadcom"):
            raise ValueError(f"hardware model {model.name} has no sonic_buffer_semantics")
        model_name = buffer_model(model)
        profiles: dict[str, dict[str, Any]] = {}
        for port in context.ports:
            if model_name == "traditional" and port["lossless"] and port["pfc_profile"] not in profiles:
                profiles[port["pfc_profile"]] = _profile(port, model, semantics)
        pg_profiles = {
            port["name"]: DYNAMIC_PG_PROFILE if model_name == "dynamic" else port["pfc_profile"]
            for port in context.ports
            if port["lossless"]
        }
        priority = context.pfc["priority"]
        low, high = STOCK_LOSSLESS_RANGE
        # BUFFER_QUEUE: our lossless priority inside the stock 3-4 range writes that very key, so the
        # stock entry is replaced and no two entries overlap; elsewhere a key of its own.
        queue_key = f"{low}-{high}" if low <= priority <= high else str(priority)
        tabled: dict[tuple[int, int], str] = {}  # (speed, cable) -> its length in the table
        return {
            # The model the SKU's image runs (models.yml sonic_buffer_model); the push must find the
            # switch in it (DEVICE_METADATA|localhost.buffer_model).
            "buffer_model": model_name,
            "pg_profiles": pg_profiles,
            "buffer_semantics": semantics,
            "profiles": [profiles[name] for name in sorted(profiles)],
            # BUFFER_PG: the key buffermgrd derives from pfc_enable (buffermgr.cpp doSpeedUpdateTask:
            # <port>|<ids> from generateIdListFromMap, "3" for pfc_enable "3"), so it and gpunet write
            # one entry; the stock |3-4 entry would reserve lossless headroom for PG 4 as well.
            "lossless_pg_key": pg_key([priority]),
            "lossless_queue_key": queue_key,
            "egress_lossless_profile": STOCK_EGRESS_LOSSLESS_PROFILE,
            "stock_range_kept": queue_key != f"{low}-{high}",
            "stock_pg_key": f"{low}-{high}",
            # SONiC binds PFC priority -> PG only on these ASICs (qos_config.j2
            # pfc_to_pg_map_supported_asics); replacing PORT_QOS_MAP without it would drop it there.
            "pfc_to_pg_map": semantics in PFC_TO_PG_MAP_ASICS,
            # CABLE_LENGTH: a length the SKU's table has (the row the profile came from), else buffermgrd
            # logs "No PG profile configured" on every port event (buffermgr.cpp doSpeedUpdateTask).
            # Dynamic model: buffermgrd computes headroom from the length itself, so the real one is written.
            "cable_lengths": {
                port["name"]: _table_cable(model, port, tabled)
                if model_name == "traditional"
                else f"{port['cable_length_m']}m"
                for port in context.ports
            },
        }

    def notes(self, context: DesignContext, specifics: dict[str, Any]) -> list[str]:
        model = context.model
        if specifics["buffer_model"] == "dynamic":
            notes = [
                f"Dynamic buffer model, as {model.title}'s SONiC image ships (models.yml "
                "sonic_buffer_model): the render is for DEVICE_METADATA|localhost buffer_model "
                "'dynamic' (the push must refuse a switch in the traditional model). Lossless PGs get "
                "profile NULL: buffermgrd computes their headroom from speed, cable length and MTU; the "
                "computed values below are for review.",
            ]
        else:
            notes = [
                "Traditional buffer model: the render is for DEVICE_METADATA|localhost buffer_model "
                "'traditional' (the push must refuse a switch in the dynamic model, where buffermgrd sizes "
                "headroom itself and ignores these profiles).",
                f"BUFFER_PROFILE follows {model.title}'s {specifics['buffer_semantics']} semantics and its "
                f"vendor table ({model.sonic_pg_lookup_source}); a port's cable is rounded up to the next "
                "tabulated length.",
            ]
        notes += [
            "The stock AZURE DSCP map (DSCP 26 -> TC 1) is replaced by the complete GPUNET map on every "
            "port.",
        ]
        notes.append(
            f"BUFFER_PG uses the key buffermgrd derives from pfc_enable (|{specifics['lossless_pg_key']}); "
            f"the stock BUFFER_PG |{specifics['stock_pg_key']} entry overlaps it and must be removed by the "
            "push."
            + (
                " buffermgrd re-points that PG at its own pg_lossless_<speed>_<cable>_profile on the next "
                "port event, with the SKU table row's numbers (gpunet's own where its profile came from that "
                "row)."
                if specifics["buffer_model"] == "traditional"
                else ""
            )
        )
        if specifics["stock_range_kept"]:
            notes.append(
                "The lossless priority is outside the stock 3-4 range: the stock BUFFER_QUEUE |3-4 entry "
                "stays and must be removed by the push."
            )
        else:
            notes.append("BUFFER_QUEUE uses the stock |3-4 key, so it replaces the stock entry.")
        rounded = sorted(
            {
                f"{p['cable_length_m']}m -> {specifics['cable_lengths'][p['name']]}"
                for p in context.ports
                if f"{p['cable_length_m']}m" != specifics["cable_lengths"][p["name"]]
            }
        )
        if rounded:
            notes.append(
                "CABLE_LENGTH holds the SKU table's lengths, rounded up (buffermgrd looks the profile up by "
                f"it): {', '.join(rounded)}."
            )
        computed = [p["name"] for p in specifics["profiles"] if p["from"] == "computed"]
        if computed:
            notes.append(f"No vendor table row for {', '.join(computed)}: computed with the generic formula.")
        return notes


def buffer_model(model: SwitchModel) -> str:
    return model.sonic_buffer_model or DEFAULT_BUFFER_MODEL


def pg_key(priorities: list[int]) -> str:
    """buffermgrd's BUFFER_PG key suffix for these PFC priorities: runs of consecutive ids, each `a` or
    `a-b`, as sonic-swss cfgmgr/buffermgr.cpp (generateIdListFromMap, at e6b0c5b5) names them."""
    runs: list[list[int]] = []
    for pg in sorted(set(priorities)):
        if runs and pg == runs[-1][-1] + 1:
            runs[-1].append(pg)
        else:
            runs.append([pg])
    if len(runs) != 1:
        raise ValueError(f"lossless PGs {priorities} are not one run: gpunet writes one BUFFER_PG entry")
    run = runs[0]
    return str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}"


def _table_cable(model: Any, port: dict[str, Any], tabled: dict[tuple[int, int], str]) -> str:
    """The table's cable length for the port; `tabled` keeps each (speed, cable) asked of one model
    (a switch's 128 ports ask a few, each port looked up in the table before)."""
    asked = (port["speed_gbps"], port["cable_length_m"])
    found = tabled.get(asked)
    if found is None:
        found = tabled[asked] = _looked_up_cable(model, port)
    return found


def _looked_up_cable(model: Any, port: dict[str, Any]) -> str:
    row = model.pg_lookup(port["speed_gbps"], port["cable_length_m"])
    if row is not None:
        return f"{row.cable_m}m"
    cables = sorted({r.cable_m for r in model.sonic_pg_lookup if r.cable_m >= port["cable_length_m"]})
    return f"{cables[0] if cables else port['cable_length_m']}m"


def _profile(port: dict[str, Any], model: Any, semantics: str) -> dict[str, Any]:
    row = model.pg_lookup(port["speed_gbps"], port["cable_length_m"])
    name = port["pfc_profile"]
    if row is not None:
        profile = {"size": row.size, "xon": row.xon, "xoff": row.xoff, "xon_offset": row.xon_offset}
        source = f"{model.name} pg_profile_lookup.ini {row.speed_mbps} {row.cable_m}m"
        return {"name": name, "from": source, **_fields(semantics, profile)}
    headroom = port["headroom"]
    if semantics == "mellanox":
        profile = {
            "size": headroom["size_bytes"],
            "xon": headroom["xon_bytes"],
            "xoff": headroom["xoff_bytes"],
        }
    else:
        # Broadcom: a small reserved size (the table's), headroom is xoff.
        reserved = model.sonic_pg_lookup[0] if model.sonic_pg_lookup else None
        profile = {
            "size": reserved.size if reserved else headroom["xon_bytes"],
            "xon": reserved.xon if reserved else 0,
            "xoff": headroom["xoff_bytes"],
            "xon_offset": reserved.xon_offset if reserved else None,
        }
    return {"name": name, "from": "computed", **_fields(semantics, profile)}


def _fields(semantics: str, profile: dict[str, Any]) -> dict[str, Any]:
    fields = {"size": profile["size"], "xon": profile["xon"], "xoff": profile["xoff"]}
    if semantics == "broadcom" and profile.get("xon_offset") is not None:
        fields["xon_offset"] = profile["xon_offset"]
    return fields
