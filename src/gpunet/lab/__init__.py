"""The embedded lab: GPU-host containers, a lab NTP server and simulated switches on one machine.

`gpunet lab up|down|status` (gpunet.lab.cli) brings it up and tears it down; the switch simulator
lives in gpunet.lab.switchsim.
"""
