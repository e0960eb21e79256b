"""Every ratio, share, sum and difference a chapter prints beside its parts (DERIVED_FROM in its facts.py) reads as
the printed parts compute it (issue 60): its parts are replaced by the values a reader sees (their text in their
chapter's format, parsed back), `derive` runs again, and the printed figure must lie within what the parts' own
rounding allows (each part moved by half a unit of its last printed digit, the moves added) plus one unit of its own
last digit. A share taken from other figures than the ones printed beside it, or a sum of medians that the figures
beside it do not add up to, fails here."""

from __future__ import annotations

import dataclasses
import importlib
import re

import pytest

from kernelbook import factbook, factview, paths

CHAPTERS = sorted(p.parent.name for p in (paths.root() / "src" / "kernelbook" / "chapters").glob("*/facts.py")
                  if "DERIVED_FROM" in p.read_text())
MACHINES = ("nvidia-h200", "nvidia-h100-80gb-hbm3")


def _read_back(text: str) -> float | None:
    """'12,345.6' -> 12345.6, '97.9%' -> 0.979, '7.0×' -> 7.0, '−0.30' -> -0.3; None for a dash."""
    t = text.replace(",", "").replace("−", "-").replace("×", "").strip()
    if t in ("—", ""):
        return None
    if t.endswith("%"):
        return float(t[:-1]) / 100
    return float(t)


def _digits(text: str) -> int:
    m = re.search(r"\.(\d+)", text)
    return len(m[1]) if m else 0


def _cases():
    for chapter in CHAPTERS:
        module = importlib.import_module(f"kernelbook.chapters.{chapter}.facts")
        for machine in MACHINES:
            for name, parts in module.DERIVED_FROM.items():
                yield pytest.param(chapter, machine, name, tuple(parts), id=f"{chapter}.{name}@{machine}")


def _half_unit(text: str) -> float:
    return 0.5 * 10 ** -_digits(text) * (0.01 if text.endswith("%") else 1)


@pytest.mark.parametrize("chapter, machine, name, parts", list(_cases()))
def test_a_derived_figure_reads_as_its_printed_parts_compute_it(chapter, machine, name, parts):
    module = importlib.import_module(f"kernelbook.chapters.{chapter}.facts")
    problem = _mismatch(module, factbook.book(chapter, machine).facts, chapter, name, parts)
    assert problem is None, problem


def test_a_figure_its_parts_do_not_give_is_found():
    """The check above, driven the other way: fusing-by-hand's speedup printed 10% above its printed parts' ratio."""
    module = importlib.import_module("kernelbook.chapters.fusing_by_hand.facts")
    f = factbook.book("fusing_by_hand", "nvidia-h200").facts
    parts = module.DERIVED_FROM["norm_speedup"]
    assert _mismatch(module, f, "fusing_by_hand", "norm_speedup", parts) is None
    wrong = dataclasses.replace(f, norm_speedup=f.norm_speedup * 1.1)
    assert "give" in _mismatch(module, wrong, "fusing_by_hand", "norm_speedup", parts)


def _mismatch(module, f, chapter: str, name: str, parts: tuple[str, ...]) -> str | None:
    """What a reader who computes `name` from its printed parts finds against the printed figure, where it differs
    by more than the parts' rounding allows; None where it agrees."""
    formats = getattr(module, "FORMATS", {})
    fields = {x.name for x in dataclasses.fields(f)}
    if any(p not in fields for p in parts):
        pytest.skip("its parts are described in words or are another chapter's: nothing to recompute here")
    shown, half, texts = {}, {}, {}
    for p in parts:
        value = getattr(f, p)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            pytest.skip(f"{p} is {value!r}: nothing printed to compute from")
        texts[p] = factview.default_text(value, formats.get(p))
        try:
            shown[p], half[p] = _read_back(texts[p]), _half_unit(texts[p])
        except ValueError:
            pytest.skip(f"{p} prints {texts[p]!r}, not a number")
        if shown[p] is None:
            pytest.skip(f"{p} prints no number")
    value = getattr(f, name)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        pytest.skip(f"{name} is not a number")
    printed = factview.default_text(value, formats.get(name))

    def again(**moved: float) -> float | None:
        got = module.derive(dataclasses.replace(f, **{**shown, **moved})).get(name)
        return got if isinstance(got, (int, float)) and not isinstance(got, bool) else None

    middle = again()
    if middle is None or _read_back(printed) is None:
        pytest.skip(f"{name} is not computed from these parts' printed values")
    slack = 0.0  # how far the parts' rounding can move it
    for p in parts:
        ends = [x for x in (again(**{p: shown[p] - half[p]}), again(**{p: shown[p] + half[p]})) if x is not None]
        slack += max((abs(x - middle) for x in ends), default=0.0)
    allowed = slack + 2 * _half_unit(printed) * 1.0001
    if abs(_read_back(printed) - middle) <= allowed:
        return None
    named = ", ".join(f"{p} = {texts[p]}" for p in parts)
    return (f"{chapter}.{name} prints {printed}, but its printed parts ({named})"
            f" give {factview.default_text(middle, formats.get(name))} (their rounding allows ±{allowed:.3g})")
