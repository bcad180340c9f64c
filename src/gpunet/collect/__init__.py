"""Collection: the sessions to devices that gather what gpunet-validate judges.

Issue 30's house rule: `gpunet.validate` only reads an artifacts folder; anything that logs in to
a switch or host to fetch output lives here (`switch_show`: the switches' show commands, run by
the verify stage's `gpunet.fabric.verify_switch_show` action).
"""
