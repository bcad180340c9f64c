"""LAB EQUIPMENT: the incast's load SIMULATED on running switch simulators, for a lab without RDMA
NICs. Each rail of the incast plan whose receiver leaf is a simulated SONiC or Cumulus switch has
the load of switchsim.traffic applied to the state file the simulator keeps; the running
simulator takes the counters from that file on its next command (SimulatedSwitch.refresh_counters), so the
`incast-after` collection reads them as a switch's own. What moves is decided by the simulator's
running config (what was pushed to it): see gpunet.lab.switchsim.traffic.
"""

from __future__ import annotations

from pathlib import Path

from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.traffic import MODELLED_PLATFORMS, apply_load, rail_loads
from gpunet.validate.incast import RailIncast


def simulate_incast(plan: list[RailIncast], state_files: dict[str, Path]) -> list[str]:
    """Apply every rail's load to the state file of its receiver's leaf (switch name -> file);
    returns one line per rail saying what the simulation did or why it did not."""
    said = []
    for rail in plan:
        for switch, load in rail_loads(rail).items():
            where = f"rail {rail.rail}: {switch}:{load.egress}"
            path = state_files.get(switch)
            if path is None or not path.is_file():
                said.append(f"{where}: not simulated (no running simulator state)")
                continue
            state = SwitchState.load(path)
            if state.platform not in MODELLED_PLATFORMS:
                said.append(
                    f"{where}: not simulated (the traffic model reads SONiC and Cumulus only,"
                    f" not {state.platform})"
                )
                continue
            outcome = apply_load(state, load)
            state.save(path)
            said.append(
                f"{where}: SIMULATED {load.offered_gbps:g} Gb/s into {outcome.rate_gbps:g} Gb/s,"
                f" TC {outcome.tc} queue {outcome.queue}: {outcome.marked} ECN-marked, pauses from"
                f" {', '.join(outcome.paused_ports) or 'no port'}, {outcome.dropped} dropped"
            )
    return said
