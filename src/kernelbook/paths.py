"""Where the repository, its results and its configuration live."""

from __future__ import annotations

import os
import re
import tomllib
from functools import cache
from pathlib import Path

DEFAULT_PRIMARY = "nvidia-h200"


def root() -> Path:
    """The repository root: $KERNELBOOK_ROOT, else the checkout this package sits in (src/kernelbook/..)."""
    env = os.environ.get("KERNELBOOK_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2]


def results_dirs() -> list[Path]:
    """Where results are looked up, first match wins: results/ under the root, or $KERNELBOOK_RESULTS, a
    colon-separated list (a preview with fixtures uses `tests/fixtures/results:results`). New results go to the
    first."""
    env = os.environ.get("KERNELBOOK_RESULTS")
    if not env:
        return [root() / "results"]
    return [Path(p).resolve() for p in env.split(os.pathsep) if p]


def results_dir() -> Path:
    return results_dirs()[0]


@cache
def _pyproject(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}


MACHINE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a slug: results/<machine>/ and nothing outside it


class BadMachineName(ValueError):
    pass


def check_machine(name: str, where: str = "machine name") -> str:
    """`name` if it is a machine slug (lower-case letters, digits and single dashes), else one clear error."""
    if not isinstance(name, str) or not MACHINE_NAME.fullmatch(name):
        raise BadMachineName(f"{where} {name!r} is not a machine slug (lower-case letters, digits and dashes, as "
                             f"`python -m kernelbook list` prints them, e.g. nvidia-h200)")
    return name


def primary_machine() -> str:
    """The machine whose results the site shows first: $KERNELBOOK_MACHINE, else pyproject's [tool.kernelbook]."""
    env = os.environ.get("KERNELBOOK_MACHINE")
    if env is not None:
        return check_machine(env, "KERNELBOOK_MACHINE")
    conf = _pyproject(root() / "pyproject.toml").get("tool", {}).get("kernelbook", {})
    return check_machine(conf.get("primary-machine", DEFAULT_PRIMARY), "pyproject's primary-machine")


def machine_slug(gpu_name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200'; 'NVIDIA GeForce RTX 4060 Laptop GPU' -> 'nvidia-geforce-rtx-4060-laptop-gpu'."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")


def display(path: Path) -> str:
    """A path relative to the repository root where it lies inside it, else absolute."""
    try:
        return str(path.resolve().relative_to(root()))
    except ValueError:
        return str(path)
