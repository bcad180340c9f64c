"""SONiC (community), traditional buffer model: BUFFER_PROFILE per ASIC family from the SKU's own
pg_profile_lookup.ini, under gpunet's own profile names."""

from __future__ import annotations

from typing import Any

from gpunet.design.platform_defaults import PlatformLimits
from gpunet.design.platforms.base import DesignContext, PlatformDesign

# The stock config_db (buffers_config.j2) holds BUFFER_PG|<port>|3-4 and BUFFER_QUEUE|<port>|3-4.
STOCK_LOSSLESS_RANGE = (3, 4)
STOCK_EGRESS_LOSSLESS_PROFILE = "egress_lossless_profile"
# DEVICE_METADATA|localhost.buffer_model the rendered profiles are for (the other is "dynamic").
BUFFER_MODEL = "traditional"


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

    def headroom_rendered_as(self, port: dict[str, Any]) -> str:
        return f"BUFFER_PROFILE {port['pfc_profile']}"

    def specifics(self, context: DesignContext) -> dict[str, Any]:
        model = context.model
        semantics = model.sonic_buffer_semantics
        if semantics not in ("mellanox", "broadcom"):
            raise ValueError(f"hardware model {model.name} has no sonic_buffer_semantics")
        profiles: dict[str, dict[str, Any]] = {}
        for port in context.ports:
            if port["lossless"] and port["pfc_profile"] not in profiles:
                profiles[port["pfc_profile"]] = _profile(port, model, semantics)
        priority = context.pfc["priority"]
        low, high = STOCK_LOSSLESS_RANGE
        # Our lossless priority inside the stock 3-4 range: write that very key, so the stock entry is
        # replaced and no two entries overlap; elsewhere a key of its own.
        key = f"{low}-{high}" if low <= priority <= high else str(priority)
        return {
            # gpunet renders for the traditional model only; the push must find the switch in it.
            "buffer_model": BUFFER_MODEL,
            "buffer_semantics": semantics,
            "profiles": [profiles[name] for name in sorted(profiles)],
            "lossless_pg_key": key,
            "lossless_queue_key": key,
            "egress_lossless_profile": STOCK_EGRESS_LOSSLESS_PROFILE,
            "stock_range_kept": key != f"{low}-{high}",
        }

    def notes(self, context: DesignContext) -> list[str]:
        specifics = self.specifics(context)
        model = context.model
        notes = [
            "Traditional buffer model: the render assumes DEVICE_METADATA|localhost buffer_model "
            "'traditional' (the push must refuse a switch in the dynamic model, where buffermgrd sizes "
            "headroom itself and ignores these profiles).",
            f"BUFFER_PROFILE follows {model.title}'s {specifics['buffer_semantics']} semantics and its "
            f"vendor table ({model.sonic_pg_lookup_source}); a port's cable is rounded up to the next "
            "tabulated length.",
            "The stock AZURE DSCP map (DSCP 26 -> TC 1) is replaced by the complete GPUNET map on every "
            "port.",
        ]
        if specifics["stock_range_kept"]:
            notes.append(
                "The lossless priority is outside the stock 3-4 range: the stock BUFFER_PG/BUFFER_QUEUE "
                "|3-4 entries stay and must be removed by the push."
            )
        else:
            notes.append(
                "BUFFER_PG and BUFFER_QUEUE use the stock |3-4 keys, so they replace the stock entries "
                "instead of overlapping them."
            )
        computed = [p["name"] for p in specifics["profiles"] if p["from"] == "computed"]
        if computed:
            notes.append(f"No vendor table row for {', '.join(computed)}: computed with the generic formula.")
        return notes


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
