"""The speed-of-light bookkeeping: which finalist is reported, and what leaves the versions."""

from __future__ import annotations

from kernelbook.speed_of_light import _against_copy, _first, _pick


def test_pick_keeps_the_fastest_median_and_moves_every_finalist_out():
    timed = {"copy (1024, 8)": {"ms": 2.0, "values": [2.0, 2.1, 1.9]},
             "copy (2048, 8)": {"ms": 1.5, "values": [1.4, 1.5, 1.6]},
             "copy (4096, 4)": {"error": "RuntimeError: refused"},
             "eager": {"ms": 9.0, "values": [9.0]}}
    names = {(1024, 8): "copy (1024, 8)", (2048, 8): "copy (2048, 8)", (4096, 4): "copy (4096, 4)"}
    best, rounds = _pick(timed, names, "same-bytes copy")
    assert best == (2048, 8)
    assert timed["same-bytes copy"] == {"ms": 1.5, "values": [1.4, 1.5, 1.6]}
    assert set(timed) == {"same-bytes copy", "eager"}  # the finalists are not versions of their own
    assert set(rounds) == {"(1024, 8)", "(2048, 8)", "(4096, 4)"} and "error" in rounds["(4096, 4)"]


def test_first_orders_the_named_versions_first_and_keeps_the_rest():
    timed = {"eager": 1, "kernel": 2, "copy": 3}
    assert list(_first(timed, "copy", "kernel")) == ["copy", "kernel", "eager"]


def test_shares_are_of_the_copy_timed_in_the_same_rounds():
    timed = _against_copy({"same-bytes copy": {"ms": 1.0}, "kernel": {"ms": 1.25}, "broken": {"error": "x"}},
                          nbytes=10**9)
    assert timed["kernel"]["share_of_copy"] == 0.8 and timed["same-bytes copy"]["share_of_copy"] == 1.0
    assert round(timed["kernel"]["gbps"]) == 800 and "share_of_copy" not in timed["broken"]
