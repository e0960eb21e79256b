"""Every registered experiment points at a real function, lives in the package of the page that shows it, and
declares files that exist."""

from __future__ import annotations

import importlib

import pytest

from kernelbook import paths
from kernelbook.registry import EXPERIMENTS


@pytest.mark.parametrize("exp", EXPERIMENTS, ids=lambda e: e.name)
def test_experiment_is_well_formed(exp):
    for rel in exp.declared:
        assert (paths.root() / rel).is_file(), f"{exp.name} declares missing {rel}"
    module, func = exp.entry.split(":")
    assert callable(getattr(importlib.import_module(module), func))
    assert exp.timeout_s <= 600
    # one name per chapter: page, package, experiments
    assert module.startswith(f"kernelbook.chapters.{exp.chapter}."), module
    assert (paths.root() / "docs" / f"{exp.chapter.replace('_', '-')}.md").is_file()


def test_names_are_unique():
    names = [e.name for e in EXPERIMENTS]
    previous = [p for e in EXPERIMENTS for p in e.previous]
    assert len(names) == len(set(names)) and not set(names) & set(previous) and len(previous) == len(set(previous))
