"""How a number reads on the site: thousands separators, a share, a ratio, a timing with its noise. No markup."""

from __future__ import annotations

import math
from typing import Any


def num(x: float | int | None, digits: int = 1, unit: str = "") -> str:
    """12345.6 -> '12,345.6'. None -> an em dash (not measured). A value that rounds to zero has no sign."""
    if x is None:
        return "—"
    s = f"{x:,.{digits}f}".removeprefix("-") if round(x, digits) == 0 else f"{x:,.{digits}f}"
    return f"{s} {unit}".rstrip() if unit else s


def num_down(x: float | None, digits: int = 1) -> str:
    """A number rounded down, not to nearest: 1.67 -> '1.6', so that 'at least 1.6' holds of the figure itself."""
    if x is None:
        return "—"
    return num(math.floor(round(x * 10**digits, 6)) / 10**digits, digits)


def pct(x: float | None, digits: int = 0) -> str:
    return "—" if x is None else f"{100 * x:.{digits}f}%"


def pct_down(x: float | None, digits: int = 1) -> str:
    """A share rounded down, not to nearest: 0.97997 -> '97.9%', so a share under a goal never prints as the goal."""
    if x is None:
        return "—"
    scaled = math.floor(round(100 * x * 10**digits, 6)) / 10**digits  # round(…, 6): 0.981 * 1000 is 980.999…
    return f"{scaled:.{digits}f}%"


def timed(t: dict[str, Any], digits: int = 3, scale: float = 1.0) -> str:
    """A timing summary as a table cell: its median (times `scale`) and noise, '0.0697 ±0.4%'; a figure that was
    still noisy when its sampling stopped (bench.py) says so, '0.0716 ±11.5% noisy'. A summary from a timer without
    the noise criterion shows half its spread, '±0.2% (range)'."""
    med = num(t["median"] * scale, digits)
    if "quiet" not in t:
        return f"{med} ±{t['spread_pct'] / 2:.1f}% (range)"
    noise = t["noise_pct"]
    cell = f"{med} ±{noise:.1f}%" if noise is not None else med
    return cell if t["quiet"] else f"{cell} noisy"


def times(x: float | None, digits: int = 1) -> str:
    """7.04 -> '7.0×'."""
    return "—" if x is None else f"{x:,.{digits}f}×"


def signed(x: float | None, digits: int = 2) -> str:
    """0.13 -> '+0.13', -0.3 -> '−0.30' (a true minus sign)."""
    return "—" if x is None else f"{x:+,.{digits}f}".replace("-", "−")


def over_runs(n: int, what: str = "median") -> str:
    """What a figure drawn from n runs is, for a label: "median of 3 runs", or "one run" (no median of one)."""
    return "one run" if n == 1 else f"{what} of {n} runs"
