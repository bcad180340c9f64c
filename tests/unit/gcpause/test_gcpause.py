"""paused_gc turns the collector off for its block and back to what it was, also after an error."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gpunet.gcpause import paused_gc


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled_before", [True, False])
def test_restores_the_previous_state(enabled_before: bool) -> None:
    (gc.enable if enabled_before else gc.disable)()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause leaves the outer one in force
    assert gc.isenabled() == enabled_before


def test_restores_after_an_exception() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()
