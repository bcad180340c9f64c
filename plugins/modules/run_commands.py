#!/usr/bin/python
"""gpunet.fabric.run_commands: run a list of read-only commands on a host in one module call.

A loop over ansible.builtin.command costs one module round trip per command (a few hundred ms each
over SSH, seconds on a loaded controller); the validation collection runs about ten per host on
every site.yml, so they are run here, one after the other, in a single call. The result has the
shape of a registered loop (results[].item/rc/stdout/stderr/cmd/msg), so the filters that read
loop results read this unchanged.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: run_commands
short_description: Run a list of read-only commands on a host in one call, each with a timeout
description:
  - Runs each item's C(argv) (no shell) one after the other and returns one result per item, in the
    shape a registered C(loop) over M(ansible.builtin.command) has, so one task does the work of a loop
    without one round trip per command.
  - Never fails on a command's exit status, a missing program or a timeout; each result says what
    happened (C(rc) 124 and a message for a timeout). Never changes anything itself, so it runs in
    check mode too.
options:
  commands:
    description: The commands; each item needs C(argv) (a list of words) and is returned as C(item).
    type: list
    elements: dict
    required: true
  timeout_s:
    description: Seconds each command may run before it is killed.
    type: int
    default: 60
author: gpunet developers (!UNKNOWN)
attributes:
  check_mode:
    description: Runs in check mode too; its commands are read-only and it never reports changed.
    support: full
  diff_mode:
    description: Returns no diff; it changes nothing.
    support: none
"""

EXAMPLES = r"""
- name: Run the read-only collection commands
  gpunet.fabric.run_commands:
    commands:
      - {argv: [ip, -d, link, show], file: ip_link}
      - {argv: [rdma, link, show], file: rdma_link}
    timeout_s: 30
  register: outputs
"""

RETURN = r"""
results:
  description: One entry per command, in order.
  returned: always
  type: list
  elements: dict
  contains:
    item:
      description: The command's item as given.
      type: dict
    cmd:
      description: The argv that ran.
      type: list
      elements: str
    rc:
      description: Exit status; 2 when the program is missing, 124 after a timeout.
      type: int
    stdout:
      description: Standard output, trailing newlines removed.
      type: str
    stderr:
      description: Standard error, trailing newlines removed.
      type: str
    msg:
      description: Why a command did not exit 0.
      type: str
"""

import subprocess  # noqa: E402

from ansible.module_utils.basic import AnsibleModule  # noqa: E402

TIMEOUT_RC = 124  # what timeout(1) exits with, so a timed-out command reads as one


def run_one(item: dict, timeout_s: int) -> dict:
    argv = [str(word) for word in item.get("argv", [])]
    result = {"item": item, "cmd": argv, "changed": False, "failed": False, "stdout": "", "stderr": ""}
    try:
        done = subprocess.run(argv, capture_output=True, timeout=timeout_s, check=False)
    except FileNotFoundError as error:
        return {**result, "rc": 2, "msg": f"[Errno 2] {error.strerror}: {argv[0] if argv else ''}"}
    except PermissionError as error:
        return {**result, "rc": 126, "msg": f"[Errno 13] {error.strerror}: {argv[0] if argv else ''}"}
    except subprocess.TimeoutExpired as expired:
        return {
            **result,
            "rc": TIMEOUT_RC,
            "stdout": _text(expired.stdout),
            "stderr": _text(expired.stderr),
            "msg": f"timed out after {timeout_s} s and was killed",
        }
    return {
        **result,
        "rc": done.returncode,
        "stdout": _text(done.stdout),
        "stderr": _text(done.stderr),
        "msg": "" if done.returncode == 0 else "non-zero return code",
    }


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace").rstrip("\r\n")


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "commands": {"type": "list", "elements": "dict", "required": True},
            "timeout_s": {"type": "int", "default": 60},
        },
        supports_check_mode=True,
    )
    results = [run_one(item, module.params["timeout_s"]) for item in module.params["commands"]]
    module.exit_json(changed=False, results=results)


if __name__ == "__main__":
    main()
