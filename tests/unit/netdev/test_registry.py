"""Every platform in the registry has a commit strategy and a simulator personality."""

from __future__ import annotations

import pytest

from gpunet.lab.switchsim.personalities import PERSONALITIES
from gpunet.netdev.strategies import STRATEGIES
from gpunet.netdev.strategies.eos import hhmmss
from gpunet.platforms import PLATFORMS


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_platform_has_strategy_and_personality(platform):
    assert PLATFORMS[platform].commit_strategy in STRATEGIES
    assert platform in PERSONALITIES


@pytest.mark.parametrize(("seconds", "text"), [(2, "00:00:02"), (300, "00:05:00"), (3661, "01:01:01")])
def test_eos_commit_timer_format(seconds, text):
    assert hhmmss(seconds) == text
