"""gpunet's SSH switch simulator. LAB AND TEST EQUIPMENT: no real switch OS runs on gpunet's machines.

Each personality (nxos, eos, cumulus, sonic, junos) imitates what gpunet touches on that OS:
banner, prompts, exec/config modes, paging, `show running-config` or its equivalent, the OS's
commit model (with timer-driven rollback of an unconfirmed commit), checkpoints, the OS's error
text, and PFC/queue show commands. Configuration lines are accepted or rejected by gpunet's
grammar data (gpunet.grammar), never by the templates.

    with SimulatorFleet() as fleet:
        switch = fleet.start("eos", "spine01", options=SimOptions(password="pw"))
        ...  # connect with netmiko to 127.0.0.1:switch.port; read switch.state
"""

from gpunet.lab.switchsim.server import SimulatorFleet
from gpunet.lab.switchsim.state import SwitchState
from gpunet.lab.switchsim.switch import SimOptions, SimulatedSwitch

__all__ = ["SimOptions", "SimulatedSwitch", "SimulatorFleet", "SwitchState"]
