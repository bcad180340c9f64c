"""The one error type of the lab: says what failed and what to do about it."""

from __future__ import annotations


class LabError(RuntimeError):
    """A lab step failed; the message names the step, the command and its error output."""
