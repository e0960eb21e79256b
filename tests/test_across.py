"""kernelbook.across: a figure over the runs of the current code, on made-up timing summaries."""

from __future__ import annotations

import json

import pytest

from kernelbook import across, page
from tests.conftest import run_file


def quiet(median: float, noise: float = 0.2, ok: bool = True) -> dict:
    """A bench.py summary: sampled until quiet (or the cap, ok=False)."""
    return {"median": median, "min": median * 0.99, "max": median * 1.01, "noise_pct": noise, "quiet": ok,
            "bound_pct": 0.5}


def ranged(median: float, spread_pct: float) -> dict:
    """A timing.py summary: rounds without the noise criterion."""
    half = median * spread_pct / 200
    return {"median": median, "min": median - half, "max": median + half, "spread_pct": spread_pct}


def test_one_run_is_todays_cell():
    for t in (quiet(0.0701, 0.4), quiet(0.0716, 11.5, ok=False), ranged(0.0697, 0.4)):
        a = across.of([t])
        assert (a.runs, a.median, a.low, a.high, a.range, a.vary) == (1, t["median"], t["median"], t["median"], 0,
                                                                      False)
        assert across.cell(a, 4) == page.timed(t, 4)
        assert across.cell(a, 2, 1e3) == page.timed(t, 2, 1e3)


def test_two_runs_inside_the_spread_show_no_range():
    a = across.of([quiet(1.000, noise=1.0), quiet(1.016, noise=1.0)])  # 1.6% apart, within 2 × 1% noise
    assert (a.runs, a.low, a.high) == (2, 1.000, 1.016)
    assert a.median == pytest.approx(1.008)
    assert a.within == pytest.approx(0.02)
    assert not a.vary
    assert across.cell(a, 3) == "1.008 ±1.0%"


def test_two_runs_outside_the_spread_show_their_range():
    a = across.of([quiet(1.00, noise=0.2), quiet(1.10, noise=0.3)])  # 10% apart against 2 × 0.3%
    assert a.vary
    assert a.within == pytest.approx(0.006)
    assert a.range == pytest.approx(0.1 / 1.05)
    assert across.cell(a, 2) == "1.05 ±0.3% (runs 1.00–1.10)"
    assert across.value(a, 1, unit="×") == "1.1× (runs 1.0–1.1)"
    assert across.cell(a, 0) == "1 ±0.3%"  # both ends read 1 at these digits: no range to show


def test_noisy_runs_widen_the_spread_and_stay_marked():
    a = across.of([quiet(1.00, noise=4.0, ok=False), quiet(1.06, noise=0.3)])  # 6% apart, inside 2 × 4%
    assert a.within == pytest.approx(0.08)
    assert not a.vary
    assert across.cell(a, 2) == "1.03 ±4.0% noisy"
    b = across.of([quiet(1.00, noise=1.0, ok=False), quiet(1.06, noise=0.3)])  # ... outside 2 × 1%
    assert b.vary and across.cell(b, 2) == "1.03 ±1.0% noisy (runs 1.00–1.06)"


def test_a_timer_without_the_criterion_uses_its_rounds_range():
    a = across.of([ranged(1.0, 4.0), ranged(1.03, 1.0)])  # 3% apart, inside the 4% range
    assert a.within == pytest.approx(0.04) and not a.vary
    assert across.cell(a, 3) == "1.015 ±2.0% (range)"
    b = across.of([ranged(1.0, 1.0), ranged(1.03, 1.0)])
    assert b.vary and across.cell(b, 3) == "1.015 ±0.5% (range) (runs 1.000–1.030)"


def test_single_values_vary_when_they_differ():
    a = across.of([{"median": 2.76}, {"median": 2.66}])  # compile times: one value per run, no spread
    assert a.within is None and a.vary
    assert across.value(a, 2) == "2.71 (runs 2.66–2.76)"
    assert not across.of([{"median": 2.7}, {"median": 2.7}]).vary


def test_derived_figures_keep_their_spread():
    eager, fused = quiet(0.49, 0.1), quiet(0.07, 0.2)
    s = across.ratio(eager, fused)
    assert s["median"] == pytest.approx(7.0)
    assert s["noise_pct"] == pytest.approx((0.1 ** 2 + 0.2 ** 2) ** 0.5) and s["quiet"]
    assert s["min"] == pytest.approx(eager["min"] / fused["max"])
    r = across.rate(4.0, quiet(1.0, 0.1))
    assert (r["median"], r["noise_pct"], r["min"], r["max"]) == (4.0, 0.1, 4.0 / 1.01, 4.0 / 0.99)
    assert across.spread(across.ratio(ranged(2.0, 2.0), ranged(1.0, 2.0))) == pytest.approx(0.04, rel=1e-3)
    a = across.of([quiet(6.5, 9.5), quiet(10.8, 9.5)]).scaled(1e-3)
    assert (a.low, a.high, a.within) == (pytest.approx(6.5e-3), pytest.approx(10.8e-3), pytest.approx(0.19))
    assert a.summaries[0]["median"] == pytest.approx(6.5e-3)


def test_an_empty_list_is_an_error():
    with pytest.raises(ValueError):
        across.of([])


def test_read_goes_over_every_fresh_run(fixture_results):
    """The fixtures keep one run each; a second, current-code copy of it with a slower copy makes two."""
    from kernelbook import registry, store

    path = run_file(fixture_results, "machine.ceilings")
    rec = json.loads(path.read_text())
    rec["provenance"]["source_hashes"] = store.file_hashes(["src/kernelbook/timing.py",
                                                            *registry.get("machine.ceilings").declared])
    path.write_text(json.dumps(rec))
    copy = rec["data"]["bandwidth"]["copy"]
    one = across.read("machine.ceilings", lambda d: d["bandwidth"]["copy"])
    assert one.runs == 1 and one.median == copy["median"]
    copy["median"] *= 1.2
    rec["provenance"].update(started_utc="2026-01-02T00:00:00+00:00", note="a second run")  # named by its start,
    # and no copy of the first (the store refuses a run stored twice)
    (path.parent / "20260102T000000Z.json").write_text(json.dumps(rec))
    two = across.read("machine.ceilings", lambda d: d["bandwidth"]["copy"])
    assert two.runs == 2 and two.vary and two.high == pytest.approx(1.2 * two.low)
    assert len(across.datas("machine.ceilings")) == 2


def _second_run(results, name, edit):
    """Make the fixture run of `name` current and store a second, edited copy of it after it."""
    from kernelbook import registry, store

    path = run_file(results, name)
    rec = json.loads(path.read_text())
    rec["provenance"]["source_hashes"] = store.file_hashes(["src/kernelbook/timing.py",
                                                            *registry.get(name).declared])
    path.write_text(json.dumps(rec))
    edit(rec["data"])
    rec["provenance"].update(started_utc="2026-01-02T00:00:00+00:00", note="a second run")  # named by its start,
    # and no copy of the first (the store refuses a run stored twice)
    (path.parent / "20260102T000000Z.json").write_text(json.dumps(rec))


def _times(t, k):
    for f in ("median", "min", "max"):
        t[f] *= k
    if "values" in t:
        t["values"] = [x * k for x in t["values"]]


def _snippet(path) -> str:
    import contextlib
    import io
    import runpy

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(path)
    return out.getvalue()


@pytest.mark.parametrize("name,snippet,edit", [
    ("fusing_by_hand.versions", "snippets/fusing-by-hand/versions.py",
     lambda d: _times(next(v for v in d["versions"] if v["key"] == "triton")["time"], 1.3)),
    ("machine.ceilings", "snippets/machine/launch.py",  # the loop's time and the µs per launch stored from it
     lambda d: (_times(d["launch"]["eager_ms"], 1.7), d["launch"].update(
         eager_us_per_launch=1.7 * d["launch"]["eager_us_per_launch"]))),
    ("decode.six_ways", "snippets/decode/six_ways.py",
     lambda d: [r["variants"]["cuda_graph"].update(step_ms=3 * r["variants"]["cuda_graph"]["step_ms"])
                for r in d["rounds"]]),
])
def test_tables_show_the_range_only_where_runs_vary(fixture_results, name, snippet, edit):
    from tests.conftest import ROOT

    path = str(ROOT / snippet)
    assert "(runs " not in _snippet(path)  # one run: today's cells
    _second_run(fixture_results, name, lambda d: None)
    assert "(runs " not in _snippet(path)  # two runs that agree
    (run_file(fixture_results, name)).unlink()
    _second_run(fixture_results, name, edit)
    assert "(runs " in _snippet(path)
