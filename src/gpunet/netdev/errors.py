"""Push failures, each naming the switch and what happened; never carrying credentials."""

from __future__ import annotations


class PushError(Exception):
    """A push that did not complete; `config_state` says what the switch holds afterwards."""

    def __init__(self, switch: str, message: str, config_state: str = "unchanged") -> None:
        super().__init__(f"{switch}: {message}")
        self.switch = switch
        self.reason = message  # without the switch's name, for wrapping into another error
        # unchanged | rolled back | rolling back by itself at HH:MM:SS UTC | live unsaved | unknown...
        self.config_state = config_state


class LoginError(PushError):
    """The switch refused the credentials or the host key did not match: nothing was touched."""


class UnreachableError(PushError):
    """No SSH session could be opened (or it hung)."""


class DeviceRejectedError(PushError):
    """The OS printed an error for a configuration line."""
