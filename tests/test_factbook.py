"""The one rule (kernelbook.factbook): a chapter's numeric facts are medians over the fresh runs of the current code,
each field says how it was obtained, and derived ratios are computed again from the medians."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from conftest import run_file

from kernelbook import factbook, page, read, registry, store


def _fresh(rec: dict, name: str) -> dict:
    """A fixture record made a run of the current code (its sources' hashes today's)."""
    rec["provenance"]["source_hashes"] = store.file_hashes(["src/kernelbook/timing.py",
                                                            *registry.get(name).declared])
    return rec


def _second_run(results, name: str, stamp: str, change) -> None:
    """Another fresh run of `name` beside the fixture's, started at `stamp`, its data changed by `change`."""
    src = run_file(results, name)
    first = sorted(src.parent.glob("2*.json"))[0]
    first.write_text(json.dumps(_fresh(json.loads(first.read_text()), name)))
    rec = _fresh(json.loads(first.read_text()), name)
    change(rec["data"])
    rec["provenance"]["started_utc"] = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:" \
                                       f"{stamp[13:15]}Z"
    (src.parent / f"{stamp}.json").write_text(json.dumps(rec))


def _copy_gbps(x: float):
    """The copy at x GB/s (the fixture's at 4,000): its rate and its times."""
    def change(d):
        copy, k = d["bandwidth"]["copy"], 4000.0 / x
        copy.update(gbps=x, median=copy["median"] * k, min=copy["min"] * k, max=copy["max"] * k,
                    values=[v * k for v in copy["values"]])
        d["ridge_flop_per_byte"] /= k
    return change


@pytest.fixture
def two_copies(fixture_results):
    factbook.clear()
    _second_run(fixture_results, "machine.ceilings", "20260102T000000Z", _copy_gbps(4400.0))
    _second_run(fixture_results, "machine.ceilings", "20260103T000000Z", _copy_gbps(5000.0))
    yield fixture_results
    factbook.clear()


@dataclass(frozen=True)
class Copy:
    gbps: float  # moves with the run
    bytes_moved: int  # the same in every run
    quiet: bool  # a word: the newest run's


def _toy(monkeypatch, facts, GUARDS=None, **extra):  # noqa: N803 - the name a chapter's guards module declares
    """A chapter `toy` whose facts module is `facts(machine)`, and whose guards module declares GUARDS."""
    import sys
    import types
    from importlib.machinery import ModuleSpec

    for name, values in (("facts", {"facts": facts, **extra}), ("guards", {"GUARDS": GUARDS or {}})):
        mod = types.ModuleType(f"kernelbook.chapters.toy.{name}")
        mod.__spec__ = ModuleSpec(mod.__name__, None)
        for k, v in values.items():
            setattr(mod, k, v)
        monkeypatch.setitem(sys.modules, mod.__name__, mod)


def _copy(machine):
    c = page.result("machine.ceilings", machine).data["bandwidth"]["copy"]
    return Copy(c["gbps"], c["bytes_moved"], c["gbps"] > 4500)


def test_a_figure_is_the_median_of_its_runs_and_says_so(two_copies, monkeypatch):
    _toy(monkeypatch, _copy)
    b = factbook.compute("toy", "nvidia-h200")
    assert b.facts.gbps == 4400.0  # the median of 4,000, 4,400 and 5,000; the newest run alone says 5,000
    src = b.sources["gbps"]
    assert src.rule == "median" and src.experiments == ("machine.ceilings",) and (src.low, src.high) == (4000, 5000)
    assert src.title.startswith("median of 3 runs, 2026-01-01 to 2026-01-03, runs 4,000 to 5,000")
    assert b.sources["bytes_moved"].rule == "same" and "the same in all 3 runs" in b.sources["bytes_moved"].title
    assert b.facts.quiet is True and b.sources["quiet"].rule == "newest"  # words and verdicts: the newest run's


def test_a_chapter_that_takes_runs_itself_keeps_its_median_and_range(two_copies):
    b = factbook.compute("machine", "nvidia-h200")
    across = b.sources["copy_tbps"]  # the machine chapter reads the copy across runs itself (kernelbook.across)
    assert across.rule == "across" and b.facts.copy_tbps == pytest.approx(4.4)
    assert (across.low, across.high) == (pytest.approx(4.0), pytest.approx(5.0)) and "median of 3 runs" in across.title


def test_an_older_pick_reads_an_older_fresh_run(two_copies):
    with read.picking({"machine.ceilings": 2}):
        assert page.result("machine.ceilings").data["bandwidth"]["copy"]["gbps"] == 4000.0
    with read.picking({"machine.ceilings": 7}):  # no such run: the newest
        assert page.result("machine.ceilings").data["bandwidth"]["copy"]["gbps"] == 5000.0


@dataclass(frozen=True)
class Toy:
    a: float
    b: float
    ratio: float
    n: int
    word: str


def test_derive_recomputes_a_ratio_from_the_medians(two_copies, monkeypatch):
    def facts(machine):
        gbps = _copy(machine).gbps
        return Toy(gbps, 4000.0 if gbps < 4200 else 5000.0, 0.0, 1, "x")  # a: 4,000 4,400 5,000; b: 4,000 5,000 5,000
    _toy(monkeypatch, facts, derive=lambda f: {"ratio": f.a / f.b}, DERIVED_FROM={"ratio": ("a", "b")})
    b = factbook.compute("toy", "nvidia-h200")
    assert (b.facts.a, b.facts.b) == (4400.0, 5000.0)
    assert b.facts.ratio == 4400.0 / 5000.0  # the medians' ratio, not the median of the runs' ratios (1.0)
    assert b.sources["ratio"].rule == "derived" and "computed from the medians of a, b" in b.sources["ratio"].title


@dataclass(frozen=True)
class WithLaptop:
    gbps: float
    laptop_gbps: float  # the article's figure: the same whatever run of ours is read


def test_the_articles_figure_says_it_is_the_articles(two_copies, monkeypatch):
    _toy(monkeypatch, lambda machine: WithLaptop(_copy(machine).gbps, 248.7))
    b = factbook.compute("toy", "nvidia-h200")
    assert b.sources["laptop_gbps"].rule == "published" and "published record" in b.sources["laptop_gbps"].title
    assert b.sources["gbps"].rule == "median"


def test_a_guard_on_a_verdict_is_read_in_every_run_too(two_copies, monkeypatch):
    """Words and verdicts are the newest run's; a guard on one is also read with each older run's (each_run), and
    where one of them says otherwise `kernelbook check` notes it."""
    from kernelbook import guards

    _toy(monkeypatch, _copy, GUARDS={"fast": ("the copy ran above 4,500 GB/s", lambda f: f.quiet)})
    assert guards.evaluate("fast", "toy", "nvidia-h200").holds  # the newest run: 5,000 GB/s
    older = guards.in_every_run("fast", "toy", "nvidia-h200")  # 4,000 and 4,400 GB/s
    assert len(older) == 2 and all(not o.holds and "in machine.ceilings, run 2026010" in o.what_changed()
                                   for o in older)


def test_a_count_over_an_even_number_of_runs_says_it_is_the_lower_middle_one():
    """A count is never averaged: over 2 runs (20 and 30 rounds) the figure is 20, and its hover says so."""
    assert factbook._median([20, 30]) == 20 and factbook._median_rule([20, 30]) == "median_low"
    assert factbook._median_rule([20, 30, 25]) == "median" and factbook._median_rule([2.0, 3.0]) == "median"
    title = factbook.Source("median_low", ("20261201T000000Z", "20261203T000000Z"), 20, 30).title
    assert title.startswith("the lower of 2 runs, 2026-12-01 to 2026-12-03, runs 20 to 30")
    assert "median" not in title


def test_an_end_of_a_range_taken_across_runs_says_which_end_it_is():
    """A chapter's `<figure>_low`/`_high` over its runs is the lowest or highest run's figure, not 'the same in all'."""
    b = factbook.book("decode", "nvidia-h200")
    assert b.sources["static_ms_low"].title.startswith("the lowest run's figure of 2 runs")
    assert b.sources["static_ms_high"].title.startswith("the highest run's figure of 2 runs")
    one = factbook.Source("lowest", ("20261207T000000Z",)).title
    assert one.startswith("one run, 2026-12-07") and "a second run would show" in one
