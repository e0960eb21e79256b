"""What carries over from the H200 to the H100 (docs/machines.md), on the stored results of both, and each guard of
the page driven both ways."""

from __future__ import annotations

import dataclasses

import pytest

from kernelbook import factbook, guards, paths, store
from kernelbook.chapters.machines import carry
from kernelbook.chapters.machines import facts as F
from kernelbook.chapters.machines import guards as G

PRIMARY = paths.pyproject_primary()
OTHERS = carry.measured()
pytestmark = pytest.mark.skipif(not OTHERS, reason="no second measured GPU in results/")


@pytest.fixture(scope="module")
def f():
    return F.facts()


def test_the_second_gpu_is_a_full_run_of_every_experiment():
    assert PRIMARY not in OTHERS and "nvidia-geforce-rtx-4060-laptop-gpu" not in OTHERS
    assert OTHERS[0] == "nvidia-h100-80gb-hbm3"


def test_the_copy_ratio_is_the_machine_chapters_two_copies(f):
    a, b = (factbook.book("machine", m).facts.copy_gbps for m in (PRIMARY, OTHERS[0]))
    assert f.copy_ratio == pytest.approx(a / b)
    copy = next(t for t in carry.timed(PRIMARY, OTHERS[0]) if t.label == "2 GiB device copy")
    assert copy.share == 1 and copy.ratio == pytest.approx(f.copy_ratio)
    assert f.datasheet_ratio == pytest.approx(4.8 / 3.35)
    assert f.primary == store.machine_label(PRIMARY) and f.other == store.machine_label(OTHERS[0])


def test_each_timed_item_is_read_from_its_chapter_on_both_gpus():
    items = carry.timed(PRIMARY, OTHERS[0])
    assert len(items) == len(carry.ITEMS)  # both GPUs timed every item
    by = {t.label: t for t in items}
    a, b = (factbook.book("decode_far", m).facts for m in (PRIMARY, OTHERS[0]))
    assert by["decode step, fastest hand-built"].ratio == pytest.approx(b.best_ms / a.best_ms)
    assert by["decode step, fastest hand-built"].share == pytest.approx(a.best_floor_share)
    assert all(t.share == 0 for t in items if t.kind in ("launch", "host", "compile"))
    assert all(0 <= t.share < 1.2 and t.ratio > 0 for t in items)


def test_the_counts_add_up(f):
    declared = sum(len(guards.declared(c)) for c in carry.chapters())
    assert f.findings_n == declared == f.findings_both + f.findings_differ + f.findings_unmeasured
    differ, by_row = carry.ledger([PRIMARY, OTHERS[0]])
    assert f.rows_n == len(by_row) and f.rows_differ == len(differ) <= f.rows_n
    assert f.bytes_n == sum(t.share >= F.NEAR_FLOOR for t in carry.timed(PRIMARY, OTHERS[0]))


def test_a_finding_that_differs_says_what_the_other_gpu_measured():
    found = carry.findings([PRIMARY, OTHERS[0]])
    assert all(x.holds[0] for x in found)  # the pages are written for the primary: every statement holds there
    for x in found:
        assert (x.found[1] == "") == x.holds[1]


def test_without_a_second_gpu_every_comparing_paragraph_gives_way(monkeypatch, f):
    monkeypatch.setattr(carry, "measured", lambda: [])
    none = F.facts()
    assert none.other is None and none.copy_ratio is None and none.findings_n == 0
    for name, guard in G.GUARDS.items():
        out = guards._outcome(f"machines.{name}", guard, none)
        assert not out.holds and out.absent == G.NO_OTHER[1], name


CASES = {  # guard: (a change that turns it)
    "bytes_scale": {"bytes_high": 1.3},
    "flat_below_copy": {"flat_high": 1.5},
    "flat_both_sides": {"flat_low": 1.01},
    "steps_between": {"six_ratio": 1.3},
    "findings_differ": {"findings_differ": 0},
    "rows_differ": {"rows_differ": 0},
}


def test_every_guard_has_a_case():
    assert set(CASES) == set(G.GUARDS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_guard_holds_on_the_stored_results_and_turns(f, name):
    guard = guards.as_guard(G.GUARDS[name])
    assert guard.test(f), name
    turned = dataclasses.replace(f, **{k: (v * f.copy_ratio if k == "bytes_high" else v)
                                       for k, v in CASES[name].items()})
    assert not guard.test(turned), name
    assert guard.found(turned)  # says what the data shows, with its values


@pytest.mark.parametrize("shown", [None, "nvidia-h100-80gb-hbm3"])
def test_the_machines_table_divides_the_second_gpu_by_the_primary_whichever_the_site_shows(shown, monkeypatch,
                                                                                        capsys):
    """Built for the H100, the table once divided the H100 by itself (1.00 in every row)."""
    import runpy

    second = carry.measured()
    if not second:
        pytest.skip("no second measured GPU in results/")
    if shown:
        monkeypatch.setenv("KERNELBOOK_MACHINE", shown)
    runpy.run_path(str(paths.root() / "snippets" / "claims" / "machines.py"))
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if "figure over figure" in line)
    over = next(c for c in head.split("|") if "figure over figure" in c).strip()
    a, b = over.removesuffix(", figure over figure").split(" ÷ ")
    assert a != b and "H200" in b, over
    copy = next(line for line in out.splitlines() if line.startswith("| copy bandwidth"))
    assert copy.split("|")[4].strip() not in ("1.00", "—"), copy  # the copy ratio: the H100's copy is not the H200's
