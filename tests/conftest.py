"""Shared test setup. Page and snippet tests render from tests/fixtures/results (synthetic, clearly marked)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "results"
PUBLISHED = ROOT / "results" / "nvidia-geforce-rtx-4060-laptop-gpu"

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def fixture_results(tmp_path, monkeypatch):
    """A results folder holding the synthetic fixtures plus the committed published (article) records."""
    d = tmp_path / "results"
    shutil.copytree(FIXTURES, d)
    if PUBLISHED.is_dir():
        shutil.copytree(PUBLISHED, d / PUBLISHED.name)
    monkeypatch.setenv("KERNELBOOK_RESULTS", str(d))
    monkeypatch.setenv("KERNELBOOK_MODE", "replay")
    return d
