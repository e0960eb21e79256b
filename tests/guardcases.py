"""One way to drive a guard both ways on a chapter's facts (tests/test_facts_*.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any


def both_ways(name: str, guard: Any, facts: Any, holding: dict[str, Any], failing: dict[str, Any]) -> str:
    """The guard holds on `facts` changed by `holding` and fails on `facts` changed by `failing`; where it fails,
    its words state a value. Returns those words."""
    assert guard.test(replace(facts, **holding)) is True, f"{name} does not hold on {holding}"
    failed = replace(facts, **failing)
    assert not guard.test(failed), f"{name} still holds on {failing}"
    said = guard.found(failed)
    assert said and any(ch.isdigit() for ch in said), f"{name}: its flag states no value: {said!r}"
    return said
