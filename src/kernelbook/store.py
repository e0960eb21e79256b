"""The result store: every run of every experiment, with where it came from.

    results/<machine>/<experiment>/<run>.json     one measured run; <run> is its UTC start, 20261201T071203Z
    results/<machine>/<experiment>/published.json figures published elsewhere (the article's RTX 4060 Laptop)

A record is {"schema": 1, "experiment", "machine", "kind", "data", "provenance"}. A measured record's provenance
names the files whose code ran (`source_hashes`: path -> hash of its bytes, recorded by the runner); the run is
*fresh* while every one of them still hashes the same and it covers the files the registry declares, else *stale*.
Runs of older code stay in the folder as the experiment's history; `load` returns the newest fresh run, or the
newest run if none is fresh. Every run is checked before any of it is read, the history too: it matches its schema
(schema.py; a run of older code, the version it was stored under), its file is named by its start, which is not in
the future, it names only files of the package as its sources, it is no copy of another run, and it is a plain file
(a link, a pipe or a device in a results folder is never followed or read). A file that fails is corrupt, named with
its fix, and nothing of its experiment on that machine is shown. No flag in a file changes how it is checked: a
record that calls itself a fixture (provenance.fixture) is checked as any run is (a test's fixtures live under
tests/, named by their start like any run), and tests/test_results_provenance.py refuses it in results/. A file is
strict JSON (loads_strict: no key twice, no NaN or infinity, no deep nesting). Writes go to a temporary file in the
same folder and are renamed into place, so an interrupted run never damages a stored one.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kernelbook import contentcache, paths
from kernelbook.registry import BY_NAME, Experiment, get

SCHEMA = 1
FRESH, STALE, MISSING, PUBLISHED, CORRUPT = "fresh", "stale", "missing", "published", "corrupt"
PUBLISHED_FILE = "published.json"
RUN_FILE = re.compile(r"\d{8}T\d{6}Z(?:-\d+)?\.json")
MAX_BYTES = 64 << 20  # a results file larger than this is not read (the largest run today is under 1 MB)
CLOCK_SKEW = timedelta(days=1)  # a run may start this far after the reading machine's clock, no further
PACKAGE = "src/kernelbook/"  # a run's sources are files of the package (and the files its experiment declares)
SOURCE = re.compile(r"src/kernelbook/(?:[A-Za-z0-9_][A-Za-z0-9_.-]*/)*[A-Za-z0-9_][A-Za-z0-9_.-]*")


class StoreError(RuntimeError):
    """A results file that cannot be read or trusted; the message names the file."""


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def file_hashes(files: list[str] | tuple[str, ...], root: Path | None = None) -> dict[str, str]:
    """{path: hash} for files relative to the repository root; a file that does not exist is an error."""
    root = root or paths.root()
    out = {}
    for rel in sorted(set(files)):
        p = root / rel
        if not p.is_file():
            raise StoreError(f"source {rel} does not exist")
        out[rel] = file_hash(p)
    return out


def combined_hash(files: dict[str, str]) -> str:
    """One hash over {path: hash}: the code hash a provenance line shows."""
    return hashlib.sha256("\n".join(f"{k} {v}" for k, v in sorted(files.items())).encode()).hexdigest()[:16]


def _plain_file(p: Path) -> bool:
    """p is a regular file reached through no link (a source or a result is never read through a link)."""
    try:
        return stat.S_ISREG(p.lstat().st_mode) and os.path.realpath(p) == os.path.abspath(p)
    except OSError:
        return False


def changed_sources(exp: Experiment, recorded: dict[str, str], root: Path | None = None) -> list[str]:
    """The files that make a run with these recorded hashes stale: recorded ones that changed or are gone (or are
    no plain file: a link is never read), and declared ones the run did not record."""
    root = root or paths.root()
    changed = []
    for rel, h in sorted(recorded.items()):
        p = root / rel
        plain = _plain_file(p)
        if not plain or file_hash(p) != h:
            changed.append(rel if plain else f"{rel} (removed)")
    changed += [f"{rel} (not recorded)" for rel in exp.declared if rel not in recorded]
    return changed


@dataclass
class Result:
    experiment: str
    machine: str
    kind: str
    data: Any
    provenance: dict[str, Any]
    path: Path
    status: str = FRESH
    changed: list[str] = field(default_factory=list)  # sources that changed since the measurement
    record: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # the file as read
    digest: str = field(default="", repr=False, compare=False)  # sha256 of the file's bytes as read

    @property
    def stale(self) -> bool:
        return self.status == STALE

    @property
    def published(self) -> bool:
        return self.kind == "published"

    @property
    def run(self) -> str:
        return self.path.stem


def experiment_dirs(machine: str, name: str) -> list[Path]:
    paths.check_machine(machine)
    return [d / machine / name for d in paths.results_dirs()]


def experiment_dir(machine: str, name: str) -> Path:
    """Where the runs of `name` on `machine` are: the first results folder that holds any, else the first."""
    for d in experiment_dirs(machine, name):
        if d.is_dir() and any(d.glob("*.json")):
            return d
    return experiment_dirs(machine, name)[0]


def machine_folders() -> list[str]:
    """Every machine with a folder in a results folder, whether its results can be read or not (what `list` shows)."""
    found = set()
    for d in paths.results_dirs():
        if d.is_dir():  # a link named like a machine is listed too: reading it then says what is wrong
            found |= {p.name for p in d.iterdir() if (p.is_dir() or p.is_symlink())
                      and paths.MACHINE_NAME.fullmatch(p.name)}
    return sorted(found)


WORDS = {"pcie": "PCIe", "nvl": "NVL", "sxm": "SXM", "ada": "Ada", "max": "Max", "mobile": "Mobile"}


def _pretty(machine: str) -> str:
    """'nvidia-h200' -> 'H200', 'nvidia-geforce-rtx-4060-laptop-gpu' -> 'RTX 4060 Laptop': the slug without the
    vendor's words, a word with a digit or of three letters or fewer in capitals."""
    words = machine.split("-")
    while words and words[0] in ("nvidia", "geforce"):
        words = words[1:]
    if words and words[-1] == "gpu":
        words = words[:-1]
    if not words:
        return machine
    return " ".join(WORDS.get(w) or (w.upper() if len(w) <= 3 or any(c.isdigit() for c in w) else w.capitalize())
                    for w in words)


def machine_label(machine: str) -> str:
    """A machine's column label, from its folder's name, never from what its runs say (two folders whose runs name
    one GPU, a copied folder or two runners of one model, stay two columns; a GPU name is no markup): its slug made
    readable, or the slug itself where another machine's folder would read the same. The primary machine keeps its
    readable label whatever folder a reader adds (its pages and guards are written for it: a reader's
    `nvidia-geforce-h200` must not turn the H200 into `nvidia-h200`); the reader's folder gives way."""
    paths.check_machine(machine)
    mine, primary = _pretty(machine), paths.primary_machine()
    if machine == primary:
        return mine
    if any(_pretty(m) == mine for m in {*machine_folders(), primary} if m != machine):
        return machine
    return mine


NOTES = re.compile(r"[A-Za-z0-9_.-]+\.md")  # a note at a results folder's top (PROBES.md), for people, not the store


def top_strays() -> list[str]:
    """One line for each entry at a results folder's top that is neither a machine's folder nor a note (a folder
    `NVIDIA_H200`, a file): nothing reads it, so it is named rather than ignored."""
    out = []
    for d in paths.results_dirs():
        for p in sorted(d.iterdir()) if d.is_dir() else []:
            machine = (p.is_dir() or p.is_symlink()) and paths.MACHINE_NAME.fullmatch(p.name)
            if machine or p.name.endswith(".tmp") or (p.is_file() and not p.is_symlink() and NOTES.fullmatch(p.name)):
                continue
            what = "folder" if p.is_dir() else "file"
            out.append(f"{paths.display(p)}: a {what} that is not a machine's folder (a machine slug: lower-case "
                       f"letters, digits and dashes, e.g. nvidia-h200); rename it or move it out of the results "
                       f"folder")
    return out


def strays(machine: str) -> list[str]:
    """One line for each entry of a machine's folder that is not an experiment's folder (a typo, a renamed
    experiment's old folder, a file), and for each entry at a results folder's top that is not a machine's
    (top_strays): nothing reads it, so it is named rather than ignored."""
    out = top_strays()
    for d in paths.results_dirs():
        folder = d / machine
        if not folder.is_dir():
            continue
        for p in sorted(folder.iterdir()):
            if p.name.endswith(".tmp") or (p.is_dir() and not p.is_symlink() and p.name in BY_NAME):
                out += _unread(p) if p.is_dir() and not p.is_symlink() else []
                continue
            what = "folder" if p.is_dir() else "file"
            out.append(f"{paths.display(p)}: a {what} that is not an experiment's folder (`python -m kernelbook list` "
                       f"names them); rename it to one or move it out of the results folder")
    return out


def _unread(folder: Path) -> list[str]:
    """One line for each entry of an experiment's folder that the store never reads and no check names: neither a run,
    nor published.json, nor a *.json (load refuses those), nor a save's temp file; `20991231T235959Z.JSON`, say."""
    return [f"{paths.display(p)}: neither a run (<UTC start>.json) nor {PUBLISHED_FILE}, so never read; rename it "
            f"or move it out of the results folder" for p in sorted(folder.iterdir())
            if not (p.name.endswith((".json", ".tmp")) and not p.is_dir())]


def problems(machine: str) -> list[str]:
    """One line for each experiment whose result on `machine` cannot be shown (a corrupt file), naming the file."""
    out = []
    for name in sorted(BY_NAME):
        try:
            load(name, machine)
        except FileNotFoundError:
            continue
        except StoreError as e:
            out.append(str(e))
    return out


def _fingerprint(machine: str | None = None) -> tuple:
    """What the files of `machine` (every machine: None) look like on disk, by name, time and size: a result's
    readability, or what a held store read, can only change with this."""
    seen = []
    for d in paths.results_dirs():
        for dirpath, dirnames, filenames in os.walk(d / machine if machine else d):
            dirnames.sort()
            for f in sorted(filenames):
                try:
                    st = os.lstat(os.path.join(dirpath, f))
                except OSError:
                    continue
                seen.append((dirpath, f, st.st_mtime_ns, st.st_size))
    return tuple(sorted(BY_NAME)), tuple(seen)


_readable: dict[str, tuple[tuple, list[str]]] = {}


def machines() -> list[str]:
    """The machines the site shows: the primary whatever the state of its results (a corrupt one must fail the
    build, not vanish), and every other machine whose results can all be read. A machine left off is named once on
    stderr; `python -m kernelbook check --machine M` lists its problems, `list` marks them corrupt."""
    primary = paths.primary_machine()
    out = []
    for m in machine_folders():
        if m != primary:
            key = _fingerprint(m)
            if _readable.get(m, (None,))[0] != key:
                found = problems(m)
                _readable[m] = (key, found)
                if found:
                    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
                    print(f"kernelbook: {m} left off the site, a result cannot be read: {found[0]}{more}; "
                          f"`python -m kernelbook check --machine {m}` lists every problem", file=sys.stderr,
                          flush=True)
            if _readable[m][1]:
                continue
        out.append(m)
    return out


MAX_DEPTH = 64  # objects and arrays nested deeper than this are no run (the deepest stored today: 10)


class StrictJSON(ValueError):
    """What a strict reader refuses in text that json.loads accepts: one line, without the file's name."""


def _no_constant(name: str) -> None:
    raise StrictJSON(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON number as a float, refusing one that overflows (1e999 reads as infinity: no figure is infinite)."""
    x = float(text)
    if not math.isfinite(x):
        raise StrictJSON(f"the number {text[:40]} overflows to {x}")
    return x


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are unique: with a key twice, a reviewer reads one value and the site shows the other."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise StrictJSON(f"the key {twice!r} appears twice in one object")
    return out


def _depth_ok(obj: Any) -> bool:
    """obj nests objects and arrays no deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if d > MAX_DEPTH:
            return False
        inner = o.values() if isinstance(o, dict) else o
        stack.extend((v, d + 1) for v in inner if isinstance(v, (dict, list)))
    return True


def loads_strict(text: str) -> Any:
    """JSON as a run is written (json.dumps with allow_nan=False): no NaN or Infinity, literal or overflowing, no key
    twice in an object, nesting no deeper than MAX_DEPTH. StrictJSON or json.JSONDecodeError otherwise, never a
    RecursionError."""
    try:
        obj = json.loads(text, parse_constant=_no_constant, parse_float=_finite, object_pairs_hook=_unique)
    except RecursionError:
        raise StrictJSON(f"objects and arrays nested deeper than {MAX_DEPTH}") from None
    if isinstance(obj, (dict, list)) and not _depth_ok(obj):
        raise StrictJSON(f"objects and arrays nested deeper than {MAX_DEPTH}")
    return obj


def read_plain(path: Path) -> bytes:
    """The bytes of a results file, refusing what is not a plain file (a link, a pipe, a device: never followed, never
    waited on) and what is too large to be a run. OSError from the system, StoreError naming the file otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        if path.is_symlink():
            raise StoreError(f"{paths.display(path)}: a symbolic link; a results folder holds plain files, never "
                             f"links (replace it with the file it points to, or remove it)") from e
        raise
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"{paths.display(path)}: not a plain file (a pipe, a device or a folder); a results "
                             f"folder holds plain files: remove it")
        if st.st_size > MAX_BYTES:
            raise StoreError(f"{paths.display(path)}: {st.st_size} bytes, more than any run holds ({MAX_BYTES}); "
                             f"restore it from git or remove it")
        return f.read(MAX_BYTES + 1)


def _read(path: Path) -> tuple[dict, str]:
    """The record in a result file, checked for the fields every record has, and the hash of its bytes."""
    try:
        raw = read_plain(path)
        if not raw.strip():
            raise StoreError(f"{paths.display(path)}: empty file (a run cut off while it was written?); re-measure "
                             f"or restore it from git")
        rec = loads_strict(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise StoreError(f"{paths.display(path)}: not UTF-8 text (byte {e.start}); re-measure or restore it from "
                         f"git") from e
    except json.JSONDecodeError as e:
        raise StoreError(f"{paths.display(path)}: not valid JSON ({e.msg}, line {e.lineno}); re-measure or restore "
                         f"it from git") from e
    except ValueError as e:  # StrictJSON (NaN, infinity, a key twice, too deep), or an integer of too many digits
        raise StoreError(f"{paths.display(path)}: not valid JSON ({e}); re-measure or restore it from git") from e
    except OSError as e:
        raise StoreError(f"{paths.display(path)}: cannot be read ({e.strerror})") from e
    if not isinstance(rec, dict) or rec.get("schema") != SCHEMA or "data" not in rec or "kind" not in rec:
        raise StoreError(f"{paths.display(path)}: not a kernelbook result (schema {SCHEMA} with kind and data "
                         f"expected)")
    if rec["kind"] not in ("measured", "published"):
        raise StoreError(f"{paths.display(path)}: kind {rec['kind']!r} is neither 'measured' nor 'published'")
    if not isinstance(rec.get("provenance", {}), dict):
        raise StoreError(f"{paths.display(path)}: provenance is not an object")
    return rec, hashlib.sha256(raw).hexdigest()


def _result(exp: Experiment, machine: str, path: Path) -> Result:
    rec, digest = _read(path)
    named = rec.get("experiment")
    if named not in (exp.name, *exp.previous):
        raise StoreError(f"{paths.display(path)}: holds experiment {named!r}, not {exp.name!r}")
    if rec.get("machine") != machine:
        raise StoreError(f"{paths.display(path)}: holds a result of machine {rec.get('machine')!r}, not {machine!r} "
                         f"(copied from another machine's folder?); move it to that machine's folder or re-measure")
    if (path.name == PUBLISHED_FILE) != (rec["kind"] == "published"):
        raise StoreError(f"{paths.display(path)}: kind {rec['kind']!r} in a file named {path.name}; published "
                         f"figures go in {PUBLISHED_FILE}, measured runs in <UTC start>.json")
    res = Result(exp.name, machine, rec["kind"], rec["data"], rec.get("provenance", {}), path, record=rec,
                 digest=digest)
    if res.published:
        res.status = PUBLISHED
        return res
    recorded = res.provenance.get("source_hashes")
    if not isinstance(recorded, dict) or not recorded or not all(isinstance(v, str) for v in recorded.values()):
        raise StoreError(f"{paths.display(path)}: provenance.source_hashes is missing or not a map of file hashes")
    outside = [rel for rel in recorded if not (_package_file(rel) or rel in exp.declared)]
    if outside:
        raise StoreError(f"{paths.display(path)}: provenance.source_hashes names {outside[0]!r}, not a file of the "
                         f"package ({PACKAGE}...) nor one {exp.name} declares; a run's sources are the package's "
                         f"files that ran: re-measure, or restore it from git")
    if isinstance(res.provenance.get("started_utc"), str):  # else: the schema names what is wrong
        _check_start(path, res.provenance["started_utc"])
    res.changed = changed_sources(exp, recorded)
    res.status = STALE if res.changed else FRESH
    return res


def _package_file(rel: str) -> bool:
    """rel names a file inside the package: relative, no '.' or '..' step, nothing but plain name characters."""
    return bool(SOURCE.fullmatch(rel)) and not any(part in (".", "..") for part in rel.split("/"))


def started(value: Any) -> datetime | None:
    """A run's started_utc as a UTC time, or None where it is not an ISO time in UTC."""
    if not isinstance(value, str) or not re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]00:00)?", value):
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def _check_start(path: Path, value: Any) -> None:
    """A run's file is named by its start (save names it so), and it did not start in the future: the newest run is
    the one that started last, whatever a file is called."""
    t = started(value)
    if t is None:
        raise StoreError(f"{paths.display(path)}: provenance.started_utc {value!r} is not an ISO time in UTC "
                         f"(2026-12-01T07:12:03+00:00); re-measure, or restore it from git")
    stem = run_id(t.isoformat(timespec="seconds"))
    if path.stem.split("-")[0] != stem:
        raise StoreError(f"{paths.display(path)}: named {path.stem} but it started at {value} ({stem}): a run's file "
                         f"is named by its start, which decides which run is newest; restore it from git, or rename "
                         f"it {stem}.json if the start is true")
    if t > datetime.now(UTC) + CLOCK_SKEW:
        raise StoreError(f"{paths.display(path)}: started at {value}, in the future; a run is stored after it "
                         f"starts: restore it from git or remove it")


_valid: dict[str, str | None] = {}


def check_schema(res: Result) -> Result:
    """res, if its file holds what its experiment's schema (src/kernelbook/schemas/) describes; else StoreError naming
    the file, the JSON path of the field and what was expected. A result is only shown once it passes."""
    from kernelbook import schema

    stamp = _stored_under(res)  # None: today's schema
    try:
        # the verdict depends on the file's bytes (their hash), the schema versions and the checker alone, whichever
        # folder or copy holds them: a fixture copied for each test, a results folder cloned afresh or read again
        # by another process is checked once (kernelbook.contentcache keeps it)
        versions = stamp or schema.current_stamp(res.experiment)
        key = repr((res.digest, res.experiment, tuple(sorted(versions.items())), stamp is None, schema.checker()))
        if key not in _valid:
            _valid[key] = contentcache.kept("valid", key, lambda: schema.problem(res.record, res.experiment, stamp))
    except schema.SchemaFileError as e:
        raise StoreError(f"{paths.display(res.path)}: cannot be checked: {e}") from e
    if _valid[key]:
        fix = "re-measure or restore it from git" if res.status != STALE else (
            "restore it from git, or remove it: a run of older code is history (re-measuring adds a new run beside "
            "it)")
        raise StoreError(f"{paths.display(res.path)}: {_valid[key]}; {fix}")
    return res


def _stored_under(res: Result) -> dict[str, Any] | None:
    """The schema versions a run of older code is checked against: those it names (provenance.schema_hashes), else
    those history.json keeps for its code; None (today's) for a run of the current code, for published figures and
    for a run of code history.json does not know."""
    from kernelbook import schema

    if res.status != STALE:
        return None
    named = res.provenance.get("schema_hashes")
    if isinstance(named, dict):
        return {k: named.get(k) for k in ("data", "common")}
    return schema.legacy(res.experiment, res.provenance.get("code_hash"))


def _runs_folder(machine: str, name: str) -> Path:
    """experiment_dir, refusing a file that sits where the folder belongs."""
    d = experiment_dir(machine, name)
    for p in (d.parent, d):
        if p.is_symlink():
            raise StoreError(f"{paths.display(p)}: a symbolic link; a results folder holds plain folders and files, "
                             f"never links: replace it with the folder it points to, or remove it")
    if d.exists() and not d.is_dir():
        raise StoreError(f"{paths.display(d)}: a file where the folder of {name}'s runs belongs; move it out of the "
                         f"results folder")
    return d


_memo: list[dict[tuple, Any]] = []  # while a `held()` block runs: what runs() and load() read, by their arguments


@contextmanager
def held() -> Iterator[None]:
    """Inside the block the store is taken not to change: runs() and load() read each file once (a chapter's facts
    computed once per run, kernelbook.factbook). Nothing read inside may be changed by its reader."""
    _memo.append({})
    try:
        yield
    finally:
        _memo.pop()


def stamp() -> tuple:
    """The results folders as they look on disk: a store held across builds (Zensical's, kernelbook.mdext) is read
    afresh when this changes."""
    return tuple(paths.results_dirs()), _fingerprint()


def once(key: tuple, compute: Any) -> Any:
    """compute(), once per `held()` block for `key` (every call outside one)."""
    if not _memo:
        return compute()
    key = ("once", *key, tuple(paths.results_dirs()))
    if key not in _memo[-1]:
        _memo[-1][key] = compute()
    return _memo[-1][key]


def _memoized(fn):
    def wrapper(name: str, machine: str | None = None):
        if not _memo:
            return fn(name, machine)
        key = (fn.__name__, name, paths.primary_machine() if machine is None else machine,
               tuple(paths.results_dirs()))
        if key not in _memo[-1]:
            try:
                _memo[-1][key] = fn(name, machine)
            except (FileNotFoundError, StoreError) as e:
                _memo[-1][key] = e
        got = _memo[-1][key]
        if isinstance(got, Exception):
            raise got
        return list(got) if isinstance(got, list) else got
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


@_memoized
def runs(name: str, machine: str | None = None) -> list[Result]:
    """Every stored run of `name` on `machine`, oldest first, each with its fresh/stale status (published records
    are not runs)."""
    exp = get(name)
    machine = paths.primary_machine() if machine is None else machine
    d = _runs_folder(machine, name)
    files = sorted(p for p in d.glob("*.json") if RUN_FILE.fullmatch(p.name)) if d.is_dir() else []
    found = [check_schema(_result(exp, machine, p)) for p in files]  # every run checked before any is read
    seen: dict[str, Result] = {}
    for r in found:
        key = hashlib.sha256(json.dumps([r.data, {k: v for k, v in r.provenance.items() if k != "started_utc"}],
                                        sort_keys=True).encode()).hexdigest()
        if key in seen:
            raise StoreError(f"{paths.display(r.path)}: a copy of {seen[key].path.name} (the same data and provenance "
                             f"but for its start): a run is stored once, or the medians count it twice; remove the "
                             f"copy")
        seen[key] = r
    return found


@_memoized
def load(name: str, machine: str | None = None) -> Result:
    """The result of `name` on `machine` (default: the primary) that pages show: its published figures if that
    machine's are published, else its newest fresh run, else its newest run (stale)."""
    exp = get(name)
    machine = paths.primary_machine() if machine is None else machine
    d = _runs_folder(machine, name)
    if (d / PUBLISHED_FILE).exists() or (d / PUBLISHED_FILE).is_symlink():
        beside = sorted(p.name for p in d.glob("*.json") if RUN_FILE.fullmatch(p.name))
        if beside:
            raise StoreError(f"{paths.display(d)}: published figures ({PUBLISHED_FILE}) beside measured runs "
                             f"({beside[0]}{' and more' if len(beside) > 1 else ''}) would hide the runs; a "
                             f"machine's folder holds one or the other: move one out")
        return check_schema(_result(exp, machine, d / PUBLISHED_FILE))
    if d.is_dir():
        strays = [p.name for p in d.glob("*.json") if not RUN_FILE.fullmatch(p.name)]
        if strays:
            raise StoreError(f"{paths.display(d)}: {', '.join(sorted(strays))} is neither a run (<UTC start>.json) "
                             f"nor {PUBLISHED_FILE}; move it out of the results folder")
    found = runs(name, machine)
    if not found:
        raise FileNotFoundError(
            f"no stored result for {name} on {machine} ({paths.display(d)}/); "
            f"measure it on that GPU with `python -m kernelbook run {name}`")
    fresh = [r for r in found if r.status == FRESH]
    return (fresh or found)[-1]  # runs() checked every one


def status(name: str, machine: str) -> str:
    try:
        return load(name, machine).status
    except FileNotFoundError:
        return MISSING
    except StoreError:
        return CORRUPT


def run_id(started_utc: str) -> str:
    """'2026-12-01T07:12:03+00:00' -> '20261201T071203Z'."""
    digits = re.sub(r"[^0-9T]", "", started_utc.split("+")[0])
    if not re.fullmatch(r"\d{8}T\d{6}", digits):
        raise StoreError(f"started_utc {started_utc!r} is not an ISO time in seconds")
    return digits + "Z"


def save(name: str, machine: str, data: Any, provenance: dict[str, Any], kind: str = "measured",
         into: Path | None = None, check: bool = True) -> Path:
    """Write one run (or the published record) atomically: a temp file in the target folder, fsync, rename. A
    record that does not match its experiment's schema is refused (StoreError) and nothing is written, unless
    check=False. A checked measured run names the schema versions it was checked against
    (provenance.schema_hashes), so that it is checked against them once its code is older (schema.py). `into`: a
    results folder other than the first one (paths.results_dir())."""
    get(name)
    paths.check_machine(machine)
    if check and kind == "measured":
        from kernelbook import schema

        try:
            provenance = {**provenance, "schema_hashes": schema.current_stamp(name)}
        except schema.SchemaFileError as e:
            raise StoreError(f"{name} on {machine} cannot be checked, nothing stored: {e}") from e
    folder = (into or paths.results_dir()) / machine / name
    if kind == "published":
        path = folder / PUBLISHED_FILE
    else:
        stem = run_id(str(provenance.get("started_utc", "")))
        path, n = folder / f"{stem}.json", 1
        while path.exists():
            path, n = folder / f"{stem}-{n}.json", n + 1
    rec = {"schema": SCHEMA, "experiment": name, "machine": machine, "kind": kind,
           "provenance": provenance, "data": data}
    text = json.dumps(rec, indent=1, sort_keys=False, allow_nan=False) + "\n"
    if check:
        from kernelbook import schema

        try:
            found = schema.problem(json.loads(text), name)
        except schema.SchemaFileError as e:
            raise StoreError(f"{name} on {machine} cannot be checked, nothing stored: {e}") from e
        if found:
            raise StoreError(f"{name} on {machine} does not match its schema, nothing stored: {found}")
    write_atomic(path, text.encode())
    return path


def write_atomic(path: Path, content: bytes) -> None:
    """path holds content, or (if interrupted) what it held before: a temp file beside it, fsync, rename."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a results file is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_file(path: Path, name: str, machine: str) -> str | None:
    """Why the results file at results/<machine>/<name>/<file> cannot be trusted (one line), or None: everything
    load checks of one file (it reads, it is this experiment's and this machine's, its name fits its kind and its
    start, its sources are the package's, its schema)."""
    try:
        check_schema(_result(get(name), machine, path))
    except StoreError as e:
        return str(e)
    return None


@dataclass
class MergePlan:
    """What `merge` would do: files to copy (source, destination), files already there byte for byte, and every
    reason to copy nothing."""
    copy: list[tuple[Path, Path]] = field(default_factory=list)
    same: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def plan_merge(sources: list[Path], into: Path) -> MergePlan:
    """Read every results folder in `sources` (each holding <machine>/<experiment>/<file>.json, as results/ does)
    and check each new file as load would; a file already in `into` with the same bytes is already there (nothing to
    copy or check: `into` is the store's to check), one with other bytes is a conflict, never overwritten. Temp files
    of a killed save are skipped, and so are files at a folder's top (notes such as PROBES.md)."""
    plan, planned = MergePlan(), {}
    into = into.resolve()
    if not into.is_dir():
        plan.problems.append(f"{into}: the folder to merge into does not exist")
        return plan

    def bad(path: Path, why: str) -> None:
        plan.problems.append(f"{path}: {why}")

    for src in sources:
        if src.is_symlink() or not src.is_dir():
            bad(src, "not a folder of results (one folder per machine, as results/ is)")
            continue
        if src.resolve() == into:
            bad(src, "is the folder to merge into")
            continue
        for mdir in sorted(src.iterdir()):
            if mdir.is_symlink():
                bad(mdir, "a symlink; merge copies plain files and folders only")
            elif not mdir.is_dir():
                continue
            elif mdir.name in BY_NAME:
                bad(mdir, "an experiment's folder: give the results folder that holds the machine folders")
            elif not paths.MACHINE_NAME.fullmatch(mdir.name):
                bad(mdir, "not a machine slug (lower-case letters, digits and dashes, e.g. nvidia-h200)")
            else:
                for edir in sorted(mdir.iterdir()):
                    if edir.is_symlink() or not edir.is_dir():
                        bad(edir, "not a folder of an experiment's runs")
                    elif edir.name not in BY_NAME:
                        bad(edir, "not an experiment in the registry (`python -m kernelbook list` names them)")
                    else:
                        _plan_files(edir, mdir.name, into, plan, planned)
    if not plan.problems:
        plan.problems += merged_problems(plan, into)
    return plan


@contextmanager
def _reading_from(folder: Path) -> Iterator[None]:
    """Inside the block the store reads the results folder `folder` alone (KERNELBOOK_RESULTS, restored after)."""
    before = os.environ.get("KERNELBOOK_RESULTS")
    os.environ["KERNELBOOK_RESULTS"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ["KERNELBOOK_RESULTS"]
        else:
            os.environ["KERNELBOOK_RESULTS"] = before


def merged_problems(plan: MergePlan, into: Path) -> list[str]:
    """What the store would refuse in each experiment's folder the plan adds to, read as it would be after the merge
    (its files in `into` and the new ones, copied side by side into a temporary folder): each new file can pass
    alone and the folder still be corrupt (published figures beside measured runs, a copy of a run already there)."""
    touched = sorted({(dst.parent.parent.name, dst.parent.name) for _, dst in plan.copy})
    out = []
    with tempfile.TemporaryDirectory(prefix="kernelbook-merge-") as tmp:
        after = Path(tmp).resolve()
        for machine, name in touched:
            there, folder = into / machine / name, after / machine / name
            if there.is_dir():
                shutil.copytree(there, folder, symlinks=True)
            folder.mkdir(parents=True, exist_ok=True)
            for src, dst in plan.copy:
                if dst.parent == there:
                    shutil.copyfile(src, folder / dst.name)
        with _reading_from(after):
            for machine, name in touched:
                try:
                    load(name, machine)
                except FileNotFoundError:
                    continue
                except StoreError as e:
                    out.append(f"after the merge, {str(e).replace(str(after), str(into))}; nothing merged")
    return out


def _plan_files(edir: Path, machine: str, into: Path, plan: MergePlan, planned: dict[Path, bytes]) -> None:
    for f in sorted(edir.iterdir()):
        if f.name.endswith(".tmp"):
            continue  # left by a killed save: never a result
        if f.is_symlink() or not f.is_file():
            plan.problems.append(f"{f}: not a plain file; merge copies plain files only")
            continue
        if not (RUN_FILE.fullmatch(f.name) or f.name == PUBLISHED_FILE):
            plan.problems.append(f"{f}: neither a run (<UTC start>.json) nor {PUBLISHED_FILE}")
            continue
        dst = into / machine / edir.name / f.name
        try:
            content = read_plain(f)
        except (OSError, StoreError) as e:
            plan.problems.append(f"{f}: cannot be read ({e})")
            continue
        if dst in planned or dst.exists() or dst.is_symlink():
            try:
                there = planned[dst] if dst in planned else read_plain(dst)
            except (OSError, StoreError) as e:
                plan.problems.append(f"{f}: {paths.display(dst)} is there and cannot be read ({e})")
                continue
            if there != content:
                plan.problems.append(f"{f}: {paths.display(dst)} already holds other bytes under that name; a result "
                                     f"is never overwritten: keep one, or re-measure")
            elif dst not in planned:
                plan.same.append(dst)  # the very file: nothing to copy, and the store checks what it holds
            continue
        problem = check_file(f, edir.name, machine)
        if problem:
            plan.problems.append(problem)
            continue
        planned[dst] = content
        plan.copy.append((f, dst))


def merge(plan: MergePlan) -> None:
    """Carry out a plan without problems: copy each file in atomically."""
    assert not plan.problems, plan.problems
    for src, dst in plan.copy:
        write_atomic(dst, read_plain(src))
