"""Every registered experiment points at a real function and declares files that exist."""

from __future__ import annotations

import importlib

import pytest

from kernelbook import paths
from kernelbook.registry import EXPERIMENTS


@pytest.mark.parametrize("exp", EXPERIMENTS, ids=lambda e: e.name)
def test_experiment_is_well_formed(exp):
    for rel in exp.sources:
        assert (paths.root() / rel).is_file(), f"{exp.name} declares missing {rel}"
    module, func = exp.entry.split(":")
    assert callable(getattr(importlib.import_module(module), func))
    assert exp.timeout_s <= 600


def test_names_are_unique():
    names = [e.name for e in EXPERIMENTS]
    assert len(names) == len(set(names))
