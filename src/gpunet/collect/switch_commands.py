"""The PFC/ECN/queue show commands collected from each switch OS before and after the traffic
tests: collection data (switch_show runs them; the checks in validate/ read the saved files)."""

from __future__ import annotations

# The show commands collected per platform (file stem = `gpunet parse` tool name); the verify
# stage's verify_switch action plugin runs exactly these (collect_switch_show).
SWITCH_COMMANDS: dict[str, dict[str, str]] = {
    "nxos": {"nxos-show-interface-pfc": "show interface priority-flow-control"},
    "eos": {
        "eos-show-pfc-counters": "show priority-flow-control counters",
        # JSON forms, read by the field names Arista's ANTA tests read.
        "eos-show-interfaces-counters-queue": "show interfaces counters queue detail | json",
        "eos-show-qos-ecn-counters-queue": "show qos interfaces ecn counters queue | json",
        "eos-show-pfc": "show priority-flow-control",
        "eos-show-pfc-watchdog-json": "show priority-flow-control counters watchdog | json",
        # PFC frames per port and priority (rxFrames/txFrames, as Meta's DNE-TaaC reads them).
        "eos-show-pfc-counters-detail-json": "show priority-flow-control counters detail | json",
    },
    "cumulus": {"cumulus-nv-show-qos-roce": "nv show qos roce"},
    "sonic": {
        "sonic-show-pfc-priority": "show pfc priority",
        "sonic-show-pfc-counters": "show pfc counters",
        "sonic-show-queue-counters": "show queue counters",
        "sonic-show-ecn": "show ecn",
    },
    "junos": {
        "junos-show-interfaces-queue": "show interfaces queue",
        # Every physical interface, reduced by `| match` to the lines the check reads (the full
        # extensive output is hundreds of lines per port).
        "junos-show-interfaces-extensive": (
            'show interfaces extensive | match "Physical interface|Priority Flow Control|Priority :"'
        ),
        # The congestion-notification (PFC) profile of every interface, and what each profile
        # makes lossless.
        "junos-show-cos-interface": (
            'show class-of-service interface | match "Physical interface|Congestion-notification"'
        ),
        "junos-show-cos-congestion-notification": "show class-of-service congestion-notification",
    },
}
