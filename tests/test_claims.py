"""The claims ledger: every claim evaluates on the committed results, quotes a published figure, and says
'not measured' rather than failing when a machine lacks a result."""

from __future__ import annotations

import copy

import pytest

from kernelbook.chapters.claims import ledger as claims
from kernelbook.registry import BY_NAME


@pytest.mark.parametrize("claim", claims.CLAIMS, ids=lambda c: c.id)
def test_claim_is_checked_on_the_primary_machine(claim, monkeypatch):
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    assert all(n in BY_NAME for n in claim.needs)
    figure, verdict = claims.verdict(claim, "nvidia-h200")
    assert verdict in (claims.HOLDS, claims.FAILS), f"{claim.id}: {verdict}"
    assert figure and figure != "—"
    assert claims.laptop_figure(claim) != "—", f"{claim.id}: no published figure for the article"


def test_a_machine_without_results_is_not_measured(monkeypatch):
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    assert claims.verdict(claims.BY_ID["speedup"], "no-such-gpu") == ("—", claims.MISSING)


def test_ids_are_unique_and_pages_exist():
    from kernelbook import paths

    assert len(claims.BY_ID) == len(claims.CLAIMS)
    for c in claims.CLAIMS:
        assert (paths.root() / "docs" / c.page).is_file(), c.page


@pytest.mark.parametrize("claim, change", [
    ("swiglu-bytes", lambda d: d["memory_bound.eager_bytes"]["chains"]["swiglu"].update(fused_bytes_per_elem=8.0)),
    ("expandable", lambda d: d["allocator.fragmentation"]["expandable"]["checkpoints"][-1].update(
        reserved=2048 * claims.MiB)),
])
def test_a_check_reads_every_figure_its_test_names(claim, change, monkeypatch):
    """'against 6 fused' and 'same allocated and reserved bytes': the check fails when only that figure differs."""
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    c = claims.BY_ID[claim]
    data = copy.deepcopy(claims._data(c.needs, "nvidia-h200"))
    assert claims.judge(c, data)[1] == claims.HOLDS
    change(data)
    assert claims.judge(c, data)[1] == claims.FAILS
