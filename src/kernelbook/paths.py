"""Where the repository, its results and its configuration live."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

DEFAULT_PRIMARY = "nvidia-h200"


def root() -> Path:
    """The repository root: $KERNELBOOK_ROOT, else the checkout this package sits in (src/kernelbook/..)."""
    env = os.environ.get("KERNELBOOK_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2]


class BadSetting(ValueError):
    """An environment variable, flag or configuration value that cannot be used; the message names it and the fix."""


class BadMachineName(BadSetting):
    pass


def results_dirs(must_exist: bool = True) -> list[Path]:
    """Where results are looked up, first match wins: results/ under the root, or $KERNELBOOK_RESULTS, a
    colon-separated list (a preview with fixtures uses `tests/fixtures/results:results`). New results go to the
    first. A folder KERNELBOOK_RESULTS names must exist (`must_exist=False`: the first may be created by a save)."""
    env = os.environ.get("KERNELBOOK_RESULTS")
    if not env:
        return [root() / "results"]
    dirs = [Path(p).resolve() for p in env.split(os.pathsep) if p]
    if not dirs:
        raise BadSetting(f"KERNELBOOK_RESULTS={env!r} names no folder; unset it to use results/, or name a results "
                         f"folder (one sub-folder per machine)")
    for i, d in enumerate(dirs):
        if d.exists() and not d.is_dir():
            raise BadSetting(f"KERNELBOOK_RESULTS names {d}, which is a file, not a results folder; point it at a "
                             f"folder holding <machine>/<experiment>/ (e.g. results)")
        if not d.exists() and (must_exist or i > 0):
            raise BadSetting(f"KERNELBOOK_RESULTS names {d}, which does not exist; point it at a results folder "
                             f"(e.g. results), or unset it")
    return dirs


def results_dir() -> Path:
    """Where new results are saved: the first results folder (created by the save if KERNELBOOK_RESULTS names a
    folder that does not exist yet)."""
    return results_dirs(must_exist=False)[0]


@cache
def _pyproject(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}


MACHINE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a slug: results/<machine>/ and nothing outside it


def check_machine(name: str, where: str = "machine name") -> str:
    """`name` if it is a machine slug (lower-case letters, digits and single dashes), else one clear error."""
    if not isinstance(name, str) or not MACHINE_NAME.fullmatch(name):
        raise BadMachineName(f"{where} {name!r} is not a machine slug (lower-case letters, digits and dashes, as "
                             f"`python -m kernelbook list` prints them, e.g. nvidia-h200)")
    return name


_computing: list[str] = []  # the machine whose facts kernelbook.factbook is computing, innermost last


@contextmanager
def computing_for(machine: str) -> Iterator[None]:
    """While a chapter's facts are computed for `machine`, it is the machine every read defaults to: a chapter's
    facts on the H200 read the H200's runs alone, whatever machine the build shows (the machines page computes both)."""
    _computing.append(machine)
    try:
        yield
    finally:
        _computing.pop()


def primary_machine() -> str:
    """The machine whose results the site shows first: $KERNELBOOK_MACHINE, else pyproject's [tool.kernelbook]
    (inside factbook's computation of one machine's facts, that machine)."""
    if _computing:
        return _computing[-1]
    env = os.environ.get("KERNELBOOK_MACHINE")
    if env is not None:
        return check_machine(env, "KERNELBOOK_MACHINE")
    return pyproject_primary()


def pyproject_primary() -> str:
    """The machine the pages are written for (pyproject's [tool.kernelbook] primary-machine), whatever
    KERNELBOOK_MACHINE shows: where a page's guards must hold."""
    conf = _pyproject(root() / "pyproject.toml").get("tool", {}).get("kernelbook", {})
    return check_machine(conf.get("primary-machine", DEFAULT_PRIMARY), "pyproject's primary-machine")


def book_machines() -> list[str]:
    """The book's other measured GPUs (pyproject's [tool.kernelbook] also-measured): measured from the project's own
    commits and compared with the primary on the machines page; a reader's folder is a column, not one of these."""
    conf = _pyproject(root() / "pyproject.toml").get("tool", {}).get("kernelbook", {})
    return [check_machine(m, "pyproject's also-measured") for m in conf.get("also-measured", [])]


def machine_slug(gpu_name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200'; 'NVIDIA GeForce RTX 4060 Laptop GPU' -> 'nvidia-geforce-rtx-4060-laptop-gpu'."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")


def display(path: Path) -> str:
    """A path relative to the repository root where it lies inside it, else absolute."""
    try:
        return str(path.resolve().relative_to(root()))
    except ValueError:
        return str(path)
