"""How a claim of the article is judged: the row that states the test, the verdict words, and the rules that turn
one run's figures into a verdict and several runs' verdicts into one.

A row states its test before any data is read, in one of three forms, each of which can fail:

- a *figure*, judged against a band around the article's figure (the article's own range, or ± a stated share of
  its figure): *reproduced* inside the band; outside it, *same direction, other size* where the weaker relation the
  figure expresses still holds (a speedup above 1), else *contradicted*. A figure whose rounds within the run
  spread wider than the band is *noisy*: that run cannot decide.
- a *relation* ("A is faster than B"), judged on its difference in every round (or every pair of samples), signed
  so that a positive difference is what the claim says: it *holds* when the whole interval of the differences lies
  above zero, *does not hold* when it lies below, and is *not resolved* (noisy) when the interval straddles zero.
- an *exact* fact (a count, a bit-identical result, an error raised): it *holds* or *does not hold*.

A timing that reached its cap still noisier than bench.py's bound (a row's `quiet` says so) cannot decide on its
median: a figure then decides only where every round gives the same verdict, and a relation whose interval
straddles zero is *noisy*, not merely not resolved.

Two more kinds are not tested by a measurement here: *documented* rows (another project's documented behaviour,
with the source cited, and computed where it can be) and *unmeasured* rows (no experiment stores the figure; the row
names what would measure it). A row that cannot apply on a machine says why (*does not apply*).

Each stored run of the current code is judged on its own; the row's verdict is theirs when they agree and *varies*
when they do not. A noisy run does not decide on its own, but its median still points one way (its `leans`): where
that is the deciding runs' verdict, theirs stands; where it points another way, the runs disagree and the row
*varies*. Pure Python over stored data: nothing here reads files.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Data = dict[str, Any]  # experiment name -> that experiment's data in one run (or its published record)
Kind = Literal["figure", "relation", "exact", "documented", "unmeasured"]
Verdict = Literal["reproduced", "same direction, other size", "contradicted", "holds", "does not hold",
                  "not resolved", "noisy", "varies", "does not apply", "not measured", "documented"]
REPRODUCED: Verdict = "reproduced"
OTHER_SIZE: Verdict = "same direction, other size"
CONTRADICTED: Verdict = "contradicted"
HOLDS: Verdict = "holds"
FAILS: Verdict = "does not hold"
NOT_RESOLVED: Verdict = "not resolved"
NOISY: Verdict = "noisy"
VARIES: Verdict = "varies"
NOT_APPLICABLE: Verdict = "does not apply"
NOT_MEASURED: Verdict = "not measured"
DOCUMENTED: Verdict = "documented"
VERDICTS: tuple[Verdict, ...] = (REPRODUCED, OTHER_SIZE, CONTRADICTED, HOLDS, FAILS, NOT_RESOLVED, NOISY, VARIES,
                                 NOT_APPLICABLE, NOT_MEASURED, DOCUMENTED)
Stance = Literal["agrees", "differs", "open"]  # what a summary sentence may say a verdict shows
AGREES: tuple[Verdict, ...] = (REPRODUCED, HOLDS)
DIFFERS: tuple[Verdict, ...] = (OTHER_SIZE, CONTRADICTED, FAILS)
UNDECIDED: tuple[Verdict, ...] = (NOT_RESOLVED, NOISY, VARIES)  # measured, but the spread or the runs cannot decide


def stance(v: Verdict) -> Stance:
    """agrees: the article's claim is borne out; differs: the figure or the fact is another; open: anything else."""
    return "agrees" if v in AGREES else "differs" if v in DIFFERS else "open"


@dataclass(frozen=True)
class Band:
    """Where a figure counts as the article's: ± `share` of its figure, its own range (`share` None and the
    article's figure a (low, high) pair), or, with `at_least`, anywhere from its figure up."""
    share: float | None = None
    at_least: bool = False

    def bounds(self, article: float | tuple[float, float]) -> tuple[float, float]:
        if isinstance(article, tuple):
            lo, hi = article
            return (lo * (1 - self.share), hi * (1 + self.share)) if self.share else (lo, hi)
        if self.at_least:
            return article, math.inf
        if self.share is None:
            return article, article
        return article * (1 - self.share), article * (1 + self.share)


@dataclass(frozen=True)
class Row:
    """One claim of the article and the test it is judged by. Only the fields of its kind are set."""
    id: str
    part: str  # the article's section it comes from (PARTS)
    page: str  # the page of this site that shows it
    kind: Kind
    claim: str  # what the article says, in our words
    test: str  # the test, stated before the data is read (a figure's band is added from `band`)
    needs: tuple[str, ...] = ()  # experiments it reads; the runs of the first decide, the others are read as shown
    fmt: Callable[[float], str] = str  # a figure as the table shows it
    article: Callable[[Data], Any] | None = None  # figure: the article's number or (low, high), from its records
    laptop: Callable[[Data], str] | None = None  # the article's figure as shown, from the published records
    value: Callable[[Data], Any] | None = None  # figure: our number (or a tuple of them); exact: the fact, a bool
    rounds: Callable[[Data], Sequence[float]] | None = None  # figure: the number in each round; relation: the
    #                                                          difference in each round, positive as claimed (or
    #                                                          at each end of a bound, where only bounds are known)
    band: Band | None = None
    direction: Callable[[Data], bool] | None = None  # figure: the weaker relation that still holds outside the band
    side: Callable[[float], bool] | None = None  # figure: that relation on one round's number (rounds), where it
    #                                              reads one: outside the band it then holds only if every round
    #                                              is on its side, as a relation's interval must exclude zero
    quiet: Callable[[Data], bool] | None = None  # the timings it reads stopped quiet (bench.py); None: not recorded
    match: Callable[[Any, Any], bool] | None = None  # exact: how our value meets the article's (default: equal)
    ours: Callable[[Data], str] | None = None  # our figure as shown (figure rows default to fmt(value))
    applies: Callable[[Data], bool] | None = None  # false where the claim cannot apply to the machine ...
    unless: str = ""  # ... and why, in a few words
    source: str = ""  # documented: the source, cited
    url: str = ""
    measure_by: str = ""  # unmeasured: what would measure it


@dataclass(frozen=True)
class Reading:
    """One row in one stored run: its figure and spread, and the verdict that run alone gives."""
    run: str
    verdict: Verdict
    figure: str
    value: Any  # the number (or tuple), the median difference of a relation, or the exact fact
    low: float | None  # figure: the lowest and highest round; relation: the interval of the difference
    high: float | None
    samples: int  # rounds (or pairs of samples) behind it; 1 means a single measurement and no spread
    noisy: bool  # the spread is wider than the band, or the interval straddles zero: this run cannot decide
    leans: Verdict | None = None  # a noisy run: the verdict its median alone would give (None: not noisy)


@dataclass(frozen=True)
class Judgement:
    """A row on one machine: the verdict of all its runs, and each run's reading (oldest first)."""
    row: Row
    machine: str
    verdict: Verdict
    laptop: str
    readings: tuple[Reading, ...] = ()
    band: tuple[float, float] | None = None  # figure rows: the band, from the article's figure

    @property
    def runs(self) -> int:
        return len(self.readings)

    @property
    def deciding(self) -> tuple[Reading, ...]:
        """The runs the verdict rests on: those that gave it, and the noisy ones whose median leans its way (every
        run when none did, as for *varies*)."""
        return tuple(r for r in self.readings if self.verdict in (r.verdict, r.leans)) or self.readings

    @property
    def figure(self) -> str:
        """The figure the verdict was decided on, under the site's one rule: the median over the runs it rests on
        (a figure row's number, or each end of its range, from the values themselves; any other row's each number as
        its cell shows it); each run's, oldest first, when the runs disagree."""
        if not self.readings:
            return self.row.ours({}) if self.row.kind == "documented" and self.row.ours and not self.row.needs \
                else "—"
        if self.verdict == VARIES:
            return " · ".join(r.figure for r in self.readings)
        deciding = self.deciding
        values = [_values(r.value) for r in deciding]
        if self.row.kind == "figure" and self.row.ours is None and len({len(v) for v in values}) == 1 and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for v in values for x in v):
            medians = tuple(statistics.median(col) for col in zip(*values, strict=True))
            return show(self.row, medians if len(medians) > 1 else medians[0])
        return median_text([r.figure for r in deciding]) or deciding[-1].figure


NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?![\w])")


def median_text(figures: Sequence[str]) -> str | None:
    """Cells that read alike but for their numbers ('43.0 vs 55.0 µs', '52.8 vs 89.9 µs'), each number replaced by
    its median over them, at the most decimals it shows ('52.8 vs 62.8 µs' for three runs); None where the words
    differ between the cells."""
    if not figures:
        return None
    words = [NUMBER.split(f) for f in figures]
    if any(w != words[0] for w in words):
        return None
    numbers = [NUMBER.findall(f) for f in figures]
    out = []
    for column in zip(*numbers, strict=True):
        if len(set(column)) == 1:
            out.append(column[0])
            continue
        decimals = max(len(x.split(".")[1]) if "." in x else 0 for x in column)
        m = statistics.median(float(x.replace(",", "").replace("−", "-")) for x in column)
        text = f"{m:{',' if any(',' in x for x in column) else ''}.{decimals}f}"
        out.append(text.replace("-", "−") if any("−" in x for x in column) else text)
    return "".join(w + n for w, n in zip(words[0], [*out, ""], strict=True))


def _values(x: Any) -> tuple[float, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def show(row: Row, x: Any) -> str:
    """A figure, or a low–high pair of them, as the table shows it ("11.0–16.0 µs": the unit once)."""
    cells = [row.fmt(v) for v in _values(x)]
    if len(cells) == 2 and cells[0] == cells[1]:  # a range whose ends print alike reads as its one value
        return cells[0]
    if len(cells) == 2 and " " in cells[0] and cells[0].rsplit(" ", 1)[1] == cells[1].rsplit(" ", 1)[-1]:
        cells[0] = cells[0].rsplit(" ", 1)[0]
    return "–".join(cells)


def _band(row: Row, published: Data) -> tuple[float, float]:
    return row.band.bounds(row.article(published))


def _unquiet(row: Row, data: Data) -> bool:
    """The row's timings were still noisy when their sampling stopped."""
    return row.quiet is not None and not row.quiet(data)


def read_figure(row: Row, data: Data, band: tuple[float, float], run: str) -> Reading:
    """A figure against its band. Its rounds decide only if their spread fits the band: a spread wider than the band
    that overlaps it is noisy (one wholly outside the band still shows the figure is not the article's)."""
    x = row.value(data)
    per = list(row.rounds(data)) if row.rounds else []
    low, high = (min(per), max(per)) if per else (None, None)
    noisy = len(per) > 1 and (high - low) > (band[1] - band[0]) and low <= band[1] and high >= band[0]
    inside = all(band[0] <= v <= band[1] for v in _values(x))
    if _unquiet(row, data):  # the median cannot decide: every round must give the same verdict
        rounds_in = [band[0] <= v <= band[1] for v in per]
        noisy = not per or (any(rounds_in) and not all(rounds_in)) or (not rounds_in[0] and inside)
    median = REPRODUCED if inside else OTHER_SIZE if row.direction is not None and row.direction(data) \
        else CONTRADICTED
    figure = row.ours(data) if row.ours else show(row, x)
    sides = {row.side(v) for v in per} if row.side is not None and not inside and not noisy else set()
    if len(sides) == 2:  # outside the band, and the rounds fall on both sides of the weaker relation
        split = NOISY if _unquiet(row, data) else NOT_RESOLVED
        return Reading(run, split, figure, x, low, high, len(per), True, median)
    return Reading(run, NOISY if noisy else median, figure, x, low, high, max(len(per), 1), noisy,
                   median if noisy else None)


def read_relation(row: Row, data: Data, run: str) -> Reading:
    """A relation from the interval of its differences: above zero it holds, below it does not, across it the run
    cannot tell."""
    diffs = list(row.rounds(data))
    if not diffs:
        raise ValueError(f"{row.id}: a relation needs at least one difference")
    low, high, median = min(diffs), max(diffs), statistics.median(diffs)
    open_ = low <= 0 <= high
    verdict = HOLDS if low > 0 else FAILS if high < 0 else NOISY if _unquiet(row, data) else NOT_RESOLVED
    leans = (HOLDS if median > 0 else FAILS if median < 0 else NOT_RESOLVED) if verdict == NOISY else None
    return Reading(run, verdict, row.ours(data), median, low, high, len(diffs), open_, leans)


def read_exact(row: Row, data: Data, run: str, published: Data) -> Reading:
    """An exact fact: our value equals the article's (where the row reads one), or is simply true."""
    ours = row.value(data)
    if row.article is None:
        ok = bool(ours)
    else:
        ok = (row.match or (lambda a, b: a == b))(ours, row.article(published))
    return Reading(run, HOLDS if ok else FAILS, row.ours(data), ours, None, None, 1, False)


def read(row: Row, data: Data, run: str, published: Data) -> Reading:
    """What one run's data says about a row."""
    if row.applies is not None and not row.applies(data):
        figure = row.ours(data) if row.ours else show(row, row.value(data)) if row.value else "—"
        return Reading(run, NOT_APPLICABLE, figure, None, None, None, 1, False)
    if row.kind == "figure":
        return read_figure(row, data, _band(row, published), run)
    if row.kind == "relation":
        return read_relation(row, data, run)
    if row.kind == "exact":
        return read_exact(row, data, run, published)
    raise ValueError(f"{row.id}: a {row.kind} row is not read from a run")


def combine(readings: Sequence[Reading]) -> Verdict:
    """The runs' common verdict; *varies* when they decide differently; *not measured* without a run. A noisy run
    does not decide on its own: the others' verdict stands where its median leans their way, and the row varies
    where it leans another (each run's figure then shows, none chosen over the others)."""
    if not readings:
        return NOT_MEASURED
    decided = {r.verdict for r in readings if r.verdict != NOISY}
    if not decided:
        return NOISY
    leaning = {r.leans for r in readings if r.verdict == NOISY and r.leans is not None}
    return decided.pop() if len(decided) == 1 and leaning <= decided else VARIES


def laptop_figure(row: Row, published: Data) -> str:
    """The article's figure as the row shows it, from the published records ('—' if they lack one it reads)."""
    try:
        if row.laptop is not None:
            return row.laptop(published)
        if row.article is not None:
            return show(row, row.article(published))
    except KeyError:
        return "—"
    return "—"


def decide(row: Row, machine: str, runs: Sequence[tuple[str, Data]], published: Data) -> Judgement:
    """A row on one machine from its runs (run id, data by experiment; oldest first) and the article's records."""
    laptop = laptop_figure(row, published)
    if row.kind == "documented":
        readings = tuple(Reading(run, DOCUMENTED, row.ours(data), None, None, None, 1, False)
                         for run, data in runs) if row.needs and row.ours else ()
        return Judgement(row, machine, DOCUMENTED, laptop, readings)
    if row.kind == "unmeasured" or not runs:
        return Judgement(row, machine, NOT_MEASURED, laptop)
    band = _band(row, published) if row.kind == "figure" else None
    readings = tuple(read(row, data, run, published) for run, data in runs)
    return Judgement(row, machine, combine(readings), laptop, readings, band)


def describe(row: Row, published: Data) -> str:
    """The test as the table states it: a figure's band (from the article's figure) before what else it checks, and
    where the row applies, if not everywhere."""
    test = row.test
    if row.kind == "figure" and row.band is not None and row.article is not None:
        try:
            article = row.article(published)
        except KeyError:
            article = None
        if article is not None:
            lo, hi = row.band.bounds(article)
            band = f"{row.fmt(lo)} or more" if hi == math.inf else show(row, (lo, hi))
            if row.band.share and not isinstance(article, tuple):
                band += f" (±{row.band.share:.0%})"
            test = f"{band}; {test}" if test else band
    return f"{test}; applies only on {row.unless}" if row.unless else test


def count(judgements: Sequence[Judgement], *verdicts: Verdict) -> int:
    return sum(j.verdict in verdicts for j in judgements)



# ---- building rows: one function per kind, so that a row names only what its kind reads -------------------------

def figure(id: str, part: str, page: str, claim: str, **kw: Any) -> Row:
    """A number judged against a band around the article's: needs value, article, band and fmt; rounds, direction,
    test (what the weaker relation is), ours and laptop as the row needs them."""
    return Row(id=id, part=part, page=page, kind="figure", claim=claim, test=kw.pop("test", ""), **kw)


def relation(id: str, part: str, page: str, claim: str, test: str, **kw: Any) -> Row:
    """"A is faster than B": needs rounds (each round's difference, positive as claimed), ours and laptop."""
    return Row(id=id, part=part, page=page, kind="relation", claim=claim, test=test, **kw)


def exact(id: str, part: str, page: str, claim: str, test: str, **kw: Any) -> Row:
    """A count, an identity, an error: needs value (and article, when our value must equal the article's), ours,
    laptop."""
    return Row(id=id, part=part, page=page, kind="exact", claim=claim, test=test, **kw)


def documented(id: str, part: str, page: str, claim: str, source: str, url: str, **kw: Any) -> Row:
    """Another project's documented behaviour, with its source; `ours` (from no data) where it can be computed."""
    kw.setdefault("laptop", lambda p: "cited")
    return Row(id=id, part=part, page=page, kind="documented", claim=claim, test="", source=source, url=url, **kw)


def unmeasured(id: str, part: str, page: str, claim: str, measure_by: str, **kw: Any) -> Row:
    """A claim no experiment stores a figure for: `measure_by` names what would measure it."""
    return Row(id=id, part=part, page=page, kind="unmeasured", claim=claim, test="", measure_by=measure_by, **kw)
