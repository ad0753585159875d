"""planner.collector.paused: the cyclic collector off for the duration, as it was afterwards."""

from __future__ import annotations

import gc

import pytest

from planner.collector import paused


def test_paused_restores_the_collector_even_on_an_error():
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer one resumes it, not the inner
    assert gc.isenabled()
    with pytest.raises(ValueError), paused():
        raise ValueError
    assert gc.isenabled()


def test_paused_leaves_a_disabled_collector_disabled():
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
