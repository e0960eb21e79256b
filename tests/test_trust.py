"""Results a stranger can trust (issue 50): every stored run checked before it is read, history included; forgeries
made visible; stored strings never markup; a reader's GPU with a column of its own; nothing followed through a link
in results/. Each case here failed on the code before the issue; the GPU workflow's data path is in
tests/test_workflows.py."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, ROOT, run_file

from kernelbook import cli, page, paths, provenance, registry, schema, store
from kernelbook.registry import EXPERIMENTS

PRIMARY = "nvidia-h200"
READER = "nvidia-h200-fixture"  # the reader's-GPU fixture: a second machine derived from the H200's runs


@pytest.fixture
def committed(tmp_path, monkeypatch):
    """A copy of the committed results (KERNELBOOK_RESULTS points at it), to break."""
    d = tmp_path / "results"
    shutil.copytree(ROOT / "results", d)
    monkeypatch.setenv("KERNELBOOK_RESULTS", str(d))
    monkeypatch.setenv("KERNELBOOK_MODE", "replay")
    monkeypatch.delenv("KERNELBOOK_MACHINE", raising=False)
    return d


def runs_of(results: Path, name: str, machine: str = PRIMARY) -> list[Path]:
    return sorted((results / machine / name).glob("2*.json"))


def edit(path: Path, change) -> dict:
    rec = json.loads(path.read_text())
    change(rec)
    path.write_text(json.dumps(rec, indent=1))
    return rec


def stamp_of(t: datetime) -> str:
    return store.run_id(t.isoformat(timespec="seconds"))


def reader_gpu(results: Path, slug: str = READER) -> Path:
    """A second machine's folder derived from the stored data and labelled as a fixture: the newest fresh H200 run
    of every experiment filed under `slug`, its provenance marked fixture (its runs still say NVIDIA H200: what a
    copied folder, or a second runner of one GPU model under another slug, looks like)."""
    for e in EXPERIMENTS:
        src = store.load(e.name, PRIMARY).path  # the newest fresh run
        rec = json.loads(src.read_text())
        rec["machine"] = slug
        rec["provenance"]["fixture"] = True
        rec["provenance"]["note"] = (f"fixture (tests/test_trust.py): the {PRIMARY} run {src.name}, filed as a second "
                                     f"machine's")
        dst = results / slug / e.name / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(json.dumps(rec, indent=1))
    return results / slug


# ---- 1. runs of older code are checked against the schema they were stored under --------------------------------

def test_every_committed_run_history_included_matches_the_schema_it_was_stored_under():
    """29 runs of older code do not match today's schemas; each matches the version it was stored under, which
    schemas/history.json keeps by hash."""
    checked = 0
    for m in store.machine_folders():
        for e in EXPERIMENTS:
            try:
                found = store.runs(e.name, m)
            except FileNotFoundError:
                continue
            for r in found:
                store.check_schema(r)
                checked += 1
    assert checked >= 140
    old = [r for r in store.runs("machine.ceilings", PRIMARY) if r.status == store.STALE]
    assert any(schema.problem(r.record, r.experiment) for r in old), "an older run that today's schema refuses"


def test_a_new_run_names_the_schema_versions_it_was_checked_against(fixture_results):
    data = json.loads(run_file(FIXTURES, "machine.ceilings").read_text())["data"]
    path = store.save("machine.ceilings", PRIMARY, data, {"started_utc": "2026-12-02T00:00:00+00:00",
                                                         "source_hashes": {"src/kernelbook/timing.py": "0" * 16}})
    named = json.loads(path.read_text())["provenance"]["schema_hashes"]
    assert named == schema.current_stamp("machine.ceilings") and set(named) == {"data", "common"}


def test_today_s_schema_versions_are_kept_for_the_runs_stored_under_them(capsys):
    assert schema.missing_versions() == []
    assert cli.main(["schemas"]) == 0
    assert "every schema's version is kept" in capsys.readouterr().out


def test_a_schema_edit_leaves_runs_stored_under_the_old_version_checkable(tmp_path, monkeypatch, toy_schema, capsys):
    """A run stored under one version of its schema stays readable once the schema changes and its code is older;
    `schemas` names a version history.json lacks until `schemas --keep` adds it."""
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    (tmp_path / "src" / "kernelbook").mkdir(parents=True)
    src = tmp_path / "src" / "kernelbook" / "toy.py"
    src.write_text("A = 1\n")
    monkeypatch.setitem(registry.BY_NAME, "toy.exp", registry.Experiment("toy.exp", "x:y", "a toy"))
    assert cli.main(["schemas"]) == 1 and "toy.exp.json" in capsys.readouterr().out  # today's toy: not kept yet
    assert cli.main(["schemas", "--keep"]) == 0 and "toy.exp.json" in capsys.readouterr().out
    hashes = store.file_hashes(["src/kernelbook/toy.py"])
    store.save("toy.exp", "gpu-x", {"v": 1}, {"started_utc": "2026-12-01T00:00:00+00:00", "source_hashes": hashes})
    (toy_schema / "toy.exp.json").write_text('{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": '
                                             '"object", "required": ["w"], "$defs": {"published": {}}}')
    schema._load.cache_clear()
    schema._validator.cache_clear()
    src.write_text("A = 2\n")  # the run is of older code now: checked against the version it was stored under
    res = store.load("toy.exp", "gpu-x")
    assert res.stale and res.data == {"v": 1}
    store.save("toy.exp", "gpu-x", {"w": 1}, {"started_utc": "2026-12-01T01:00:00+00:00",
                                              "source_hashes": store.file_hashes(["src/kernelbook/toy.py"])})
    with pytest.raises(store.StoreError, match=r"\$\.data\.w is missing"):  # a run of today's code: today's schema
        store.save("toy.exp", "gpu-x", {"v": 2}, {"started_utc": "2026-12-01T02:00:00+00:00",
                                                  "source_hashes": store.file_hashes(["src/kernelbook/toy.py"])})


def test_a_run_naming_a_schema_version_nobody_kept_is_corrupt(committed):
    old = next(r for r in store.runs("machine.ceilings", PRIMARY) if r.status == store.STALE)
    edit(old.path, lambda rec: rec["provenance"].update(schema_hashes={"data": "0" * 16, "common": "1" * 16}))
    with pytest.raises(store.StoreError, match=f"{old.path.name}: cannot be checked: no schema version 0{{16}}"):
        store.load("machine.ceilings", PRIMARY)


# ---- 2. every run checked before it is read, history included ----------------------------------------------------

def _older_run(results: Path) -> Path:
    """A run of older code of machine.ceilings that today's schema refuses (its own accepts it)."""
    for p in runs_of(results, "machine.ceilings"):
        rec = json.loads(p.read_text())
        if schema.problem(rec, "machine.ceilings") and schema.legacy("machine.ceilings",
                                                                     rec["provenance"]["code_hash"]):
            return p
    raise AssertionError("no older run")


def test_a_broken_history_run_is_corrupt_and_never_read(committed, capsys):
    """A value of an older run broken (a negative time, which the stability page would print as "-1,000.00 µs"):
    nothing of the experiment is read; check and list name the file and a fix that works."""
    bad = _older_run(committed)
    edit(bad, lambda rec: rec["data"]["launch"]["eager_ms"].update(median=-1.0))
    with pytest.raises(store.StoreError) as e:
        store.runs("machine.ceilings", PRIMARY)
    assert str(e.value).startswith(f"{bad}: $.data.launch.eager_ms.median is -1.0, expected a number >= 0")
    assert "version" in str(e.value) and "restore it from git, or remove it" in str(e.value)
    assert store.status("machine.ceilings", PRIMARY) == store.CORRUPT
    assert cli.main(["check"]) == 1
    assert f"CORRUPT  machine.ceilings: {bad}: $.data.launch.eager_ms.median" in capsys.readouterr().out
    assert cli.main(["list"]) == 0
    assert f"corrupt: {bad}: " in capsys.readouterr().out
    bad.unlink()  # the fix it names
    assert store.problems(PRIMARY) == []


def test_a_broken_second_newest_run_of_the_current_code_fails_check(committed, capsys):
    fresh = [r.path for r in store.runs("machine.ceilings", PRIMARY) if r.status == store.FRESH]
    assert len(fresh) >= 2
    edit(fresh[-2], lambda rec: rec["data"]["bandwidth"]["copy"].update(gbps="fast"))
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert f'CORRUPT  machine.ceilings: {fresh[-2]}: $.data.bandwidth.copy.gbps is "fast", expected a number' in out
    assert "re-measure or restore it from git" in out


def test_a_reader_machine_with_a_broken_history_run_is_left_off(committed, capsys):
    reader_gpu(committed)
    old = json.loads(_older_run(committed).read_text())
    old["machine"] = READER
    broken = committed / READER / "machine.ceilings" / _older_run(committed).name
    old["data"]["bandwidth"] = 5
    broken.write_text(json.dumps(old))
    store._readable.clear()
    assert READER not in store.machines()
    assert "left off the site" in capsys.readouterr().err
    assert cli.main(["check", "--machine", READER]) == 1
    assert f"CORRUPT  machine.ceilings: {broken}" in capsys.readouterr().out


# ---- 3. forgery made visible --------------------------------------------------------------------------------------

def _forge(results: Path, name: str, stem: str, start: str, change=None) -> Path:
    """The newest run of `name`, copied under the file name `stem` with started_utc `start`."""
    src = runs_of(results, name)[-1]
    rec = json.loads(src.read_text())
    rec["provenance"]["started_utc"] = start
    if change:
        change(rec)
    dst = src.with_name(f"{stem}.json")
    dst.write_text(json.dumps(rec))
    return dst


def test_a_run_not_named_by_its_start_is_corrupt(committed):
    """A file stamped 2099 whose run started in 2026 would stay the newest forever."""
    src = runs_of(committed, "machine.ceilings")[-1]
    forged = _forge(committed, "machine.ceilings", "20991231T000000Z",
                    json.loads(src.read_text())["provenance"]["started_utc"],
                    lambda rec: rec["data"]["bandwidth"]["copy"].update(gbps=9999.0))
    with pytest.raises(store.StoreError, match="named 20991231T000000Z but it started at 2026-.*: a run's file is "
                                               "named by its start"):
        store.load("machine.ceilings", PRIMARY)
    assert "20991231T000000Z" in str(forged)


def test_a_run_that_starts_in_the_future_is_corrupt(committed):
    later = datetime.now(UTC) + timedelta(days=30)
    _forge(committed, "machine.ceilings", stamp_of(later), later.isoformat(timespec="seconds"))
    with pytest.raises(store.StoreError, match="in the future; a run is stored after it starts"):
        store.load("machine.ceilings", PRIMARY)


def test_a_run_not_in_utc_is_corrupt(committed):
    """'07:12:03+05:00' would be filed as 07:12 UTC, five hours late."""
    _forge(committed, "machine.ceilings", "20261202T071203Z", "2026-12-02T07:12:03+05:00")
    with pytest.raises(store.StoreError, match="is not an ISO time in UTC"):
        store.load("machine.ceilings", PRIMARY)


@pytest.mark.parametrize("source", ["README.md", "../README.md", "src/kernelbook/../../README.md",
                                    str(ROOT / "README.md"), "src/kernelbook/./timing.py", "docs/index.md"])
def test_source_hashes_may_name_only_files_of_the_package(committed, source):
    """Naming a file outside the package (with its true hash, so the run looks fresh) is refused, and the file is
    never read: a path could lead anywhere (a device, a secret)."""
    real = ROOT / source if not source.startswith("/") else Path(source)
    h = store.file_hash(real.resolve()) if real.resolve().is_file() else "0" * 16
    path = runs_of(committed, "machine.ceilings")[-1]
    edit(path, lambda rec: rec["provenance"]["source_hashes"].__setitem__(source, h))
    with pytest.raises(store.StoreError, match=f"names {re.escape(repr(source))}, not a file of the package"):
        store.load("machine.ceilings", PRIMARY)


def test_check_commit_needs_a_commit_hash_and_a_clean_tree(fixture_results, capsys):
    """A run naming the commit '0' (a prefix of every commit starting with 0) or an unknown git state (dirty: null)
    was taken as measured at the workflow's commit."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    for e in EXPERIMENTS:
        hashes = store.file_hashes(["src/kernelbook/timing.py", *e.declared])
        data = json.loads(run_file(FIXTURES, e.name).read_text())["data"]
        store.save(e.name, PRIMARY, data, {"started_utc": "2026-12-02T00:00:00+00:00", "source_hashes": hashes,
                                           "git": {"commit": commit, "dirty": False}})
    assert cli.main(["check", "--commit", commit]) == 0
    capsys.readouterr()
    newest = run_file(fixture_results, "torch_compile.modes")
    for git in ({"commit": "0", "dirty": False}, {"commit": commit, "dirty": None}):
        edit(newest, lambda rec, git=git: rec["provenance"].update(git=git))
        assert cli.main(["check", "--commit", commit]) == 1
        assert "OTHER    torch_compile.modes" in capsys.readouterr().out


@pytest.fixture
def repo(tmp_path):
    """A scratch git repository holding one package file, committed at a known time."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    r = tmp_path / "repo"
    (r / "src" / "kernelbook").mkdir(parents=True)
    (r / "src" / "kernelbook" / "x.py").write_text("X = 1\n")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-12-01T10:00:00+00:00", "GIT_COMMITTER_DATE":
           "2026-12-01T10:00:00+00:00", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "code"]):
        subprocess.run(["git", "-C", str(r), *args], check=True, env=env, capture_output=True)
    head = subprocess.run(["git", "-C", str(r), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    return r, head, env


def _record(commit: str, started: str = "2026-12-01T11:00:00+00:00", dirty: bool | None = False, **prov) -> dict:
    hashes = {"src/kernelbook/x.py": hashlib.sha256(b"X = 1\n").hexdigest()[:16]}
    return {"schema": 1, "experiment": "machine.ceilings", "machine": PRIMARY, "kind": "measured", "data": {},
            "provenance": {"started_utc": started, "git": {"commit": commit, "dirty": dirty},
                           "source_hashes": hashes, **prov}}


def test_the_history_bears_out_a_true_record(repo):
    r, head, _ = repo
    assert provenance.git_problems(_record(head), r) == ([], None)


@pytest.mark.parametrize("case, message", [
    ("unknown commit", "is not in this repository's history"),
    ("dirty", "measured from a tree with uncommitted changes"),
    ("unknown git state", "measured from a tree with uncommitted changes (git.dirty is None)"),
    ("before its commit", "before its commit"),
    ("after the commit that added it", "after the commit that added its file"),
    ("other sources", "is not the code that was measured"),
    ("fixture", "a fixture (provenance.fixture: true)"),
])
def test_the_history_refutes_a_forged_record(repo, case, message):
    """What tests/test_results_provenance.py asks of every committed run (it skipped an unknown commit, and a dirty
    one, and asked nothing of the times)."""
    r, head, _ = repo
    rec, added = _record(head), None
    if case == "unknown commit":
        rec = _record("f" * 40)
    elif case == "dirty":
        rec = _record(head, dirty=True)
    elif case == "unknown git state":
        rec = _record(head, dirty=None)
    elif case == "before its commit":
        rec = _record(head, started="2026-11-30T10:00:00+00:00")
    elif case == "after the commit that added it":  # more than an hour after (clocks may differ by that)
        rec, added = _record(head, started="2026-12-01T11:30:00+00:00"), datetime.fromisoformat(
            "2026-12-01T10:00:00+00:00")
    elif case == "other sources":
        rec["provenance"]["source_hashes"]["src/kernelbook/x.py"] = "0" * 16
    elif case == "fixture":
        rec = _record(head, fixture=True)
    problems, skip = provenance.git_problems(rec, r, added)
    assert skip is None and any(message in p for p in problems), problems


def test_an_unknown_commit_is_skipped_only_in_a_shallow_clone(repo, tmp_path):
    r, head, env = repo
    (r / "y.txt").write_text("later\n")
    for args in (["add", "."], ["commit", "-q", "-m", "later"]):
        subprocess.run(["git", "-C", str(r), *args], check=True, env=env, capture_output=True)
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{r}", str(shallow)], check=True,
                   capture_output=True)
    problems, skip = provenance.git_problems(_record(head), shallow)
    assert problems == [] and skip and "shallow clone" in skip
    assert provenance.git_problems(_record(head), r) == ([], None)


def test_the_readme_says_what_ci_can_and_cannot_prove():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### What CI can prove about a result", 1)[1].split("\n## ", 1)[0]
    for words in ("consistent", "cannot", "measured", "artifact", "signed", "full\nclone"):
        assert words.replace("\n", " ") in section.replace("\n", " "), words


# ---- 4. stored strings are text, never markup ----------------------------------------------------------------------

MARKUP = '<script>alert("kb")</script>'


def test_provenance_lines_escape_stored_strings(committed, monkeypatch):
    page.begin_page(None)  # outside a site build: the line under the table
    path = runs_of(committed, "machine.ceilings")[-1]
    edit(path, lambda rec: rec["provenance"].update(gpu=f"NVIDIA H200{MARKUP}", driver=f"570{MARKUP}",
                                                    versions={"torch": MARKUP, "cuda": "12.8"}))
    line = page.provenance(store.load("machine.ceilings", PRIMARY))
    assert "<script>" not in line and "&lt;script&gt;alert(&quot;kb&quot;)&lt;/script&gt;" in line
    pub = store.load("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu")
    pub.provenance["source"] = MARKUP
    assert "<script>" not in page.provenance(pub)


# ---- 5. a reader's GPU: its own column, labelled by its folder ---------------------------------------------------

def test_a_machine_is_labelled_by_its_folder_never_by_what_its_runs_say(committed):
    """Two folders whose runs name one GPU (a copied folder, two runners of one model) get two labels; a GPU name
    carrying markup is not a label."""
    reader_gpu(committed)
    edit(runs_of(committed, "machine.ceilings", READER)[-1],
         lambda rec: rec["provenance"].update(gpu=f"NVIDIA H200{MARKUP}"))
    labels = {m: page.machine_label(store.load("machine.ceilings", m)) for m in (PRIMARY, READER)}
    assert labels == {PRIMARY: "H200", READER: "H200 Fixture"}
    assert store.machine_label("nvidia-geforce-rtx-4060-laptop-gpu") == "RTX 4060 Laptop"
    assert store.machine_label("nvidia-geforce-rtx-4090") == "RTX 4090"


def test_folders_that_would_read_alike_are_labelled_by_their_names(committed):
    shutil.copytree(committed / PRIMARY, committed / "h200")  # 'h200' reads 'H200' as 'nvidia-h200' does
    # the primary keeps its label (its pages and guards are written for it, issue 58); the reader's folder gives way
    assert store.machine_label(PRIMARY) == "H200" and store.machine_label("h200") == "h200"


def test_the_ledger_and_the_machines_page_have_a_column_per_folder(committed):
    """Rendered as the pages render them: the fixture's column beside the H200's, heads unrepeated (they repeated, and
    page.table refused the table, failing the strict build)."""
    reader_gpu(committed)
    store._readable.clear()
    assert READER in store.machines()
    from kernelbook.chapters.claims import ledger

    book = [PRIMARY, *paths.book_machines()]  # the H200 and the book's second GPU, then the reader's
    assert ledger.measured_machines() == [*book, READER]
    heads = [page.machine_label(page.result("machine.ceilings", m)) for m in ledger.measured_machines()]
    assert heads == ["H200", "H100 80GB HBM3", "H200 Fixture"] and len(set(heads)) == len(heads)


MARK = "<kbx onerror=alert(1)>`<built-in function print>`\n```\n</kbx>"  # a tag, a code span, a fence line
# the data's identifiers, which code looks up by value (a marked one is a KeyError, not a page): every other string
# of a record's data is marked
IDENTIFIERS = {"name", "names", "order", "mode", "modes", "key", "op", "kind", "family", "kernel_names", "backend",
               "timer", "pool", "label", "steps", "step", "baseline", "dtype", "compile_default",
               "compile_max_autotune", "compile_reduce_overhead", "cuda_graph", "eager_dynamic", "eager_static", "own",
               "fused_proj", "filled_attention", "attention_o", "down_ring", "few_o", "matvec", "matvec_fusions", "pdl",
               "swiglu_ring", "greedy", "fused_kernels", "advances", "launches", "reset_touched", "profiled"}


def _strings(value: Any, at: tuple = ()) -> list[tuple]:
    """The paths of every string value (not key) inside value."""
    if isinstance(value, str):
        return [at]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [p for k, v in items for p in _strings(v, (*at, k))]


def _at(value: Any, path: tuple, new: str | None = None) -> str:
    """The string at path inside value; with `new`, replaced by it."""
    for k in path[:-1]:
        value = value[k]
    old = value[path[-1]]
    if new is not None:
        value[path[-1]] = new
    return old


def mark_data_strings(rec: dict) -> int:
    """MARK appended to every string of a record's data but its identifiers, where its schema lets the string carry
    it (an enum, a pattern keeps its value): what a stranger's folder may hold. Returns how many were marked."""
    validator = schema._validator(schema.path_of(rec["experiment"]),
                                  "published" if rec["kind"] == "published" else None)[0]
    named = lambda path: next((k for k in reversed(path) if isinstance(k, str)), "")  # noqa: E731 - its field
    marked = {p for p in _strings(rec["data"]) if named(p) not in IDENTIFIERS}
    for path in marked:
        _at(rec["data"], path, _at(rec["data"], path) + MARK)
    while refused := {tuple(e.absolute_path) for e in validator.iter_errors(rec["data"])} & marked:
        for path in refused:
            _at(rec["data"], path, _at(rec["data"], path).removesuffix(MARK))
        marked -= refused
    assert not schema.problem(rec, rec["experiment"]), schema.problem(rec, rec["experiment"])
    return len(marked)


def mark_stored_strings(rec: dict) -> None:
    """Markup in every string a record stores that a page may show (tests/test_site_from_a_stranger.py builds a site
    from such records: it shows them as text): the provenance's strings, and a reader's data too."""
    if rec["machine"] == READER:
        mark_data_strings(rec)
    p = rec["provenance"]
    if rec["kind"] == "published":
        p["source"] = f"{p['source']} {MARKUP}"
        return
    p["gpu"] = f"{p.get('gpu', 'NVIDIA H200')}{MARKUP}"
    p["driver"] = f"{p.get('driver')}<img src=x onerror=alert(1)>"
    p["versions"] = {k: f"{v}<b>x</b>" for k, v in (p.get("versions") or {}).items()}


# ---- 6. no links followed in results/, and a closed pipe is no error ---------------------------------------------

def test_a_linked_run_file_is_never_read(committed, tmp_path):
    newest = runs_of(committed, "machine.ceilings")[-1]
    outside = tmp_path / "elsewhere.json"
    shutil.move(newest, outside)
    newest.symlink_to(outside)  # the very same bytes, through a link
    with pytest.raises(store.StoreError, match="a symbolic link; a results folder holds plain files"):
        store.load("machine.ceilings", PRIMARY)
    assert store.status("machine.ceilings", PRIMARY) == store.CORRUPT


@pytest.mark.parametrize("level", ["machine", "experiment"])
def test_a_linked_folder_is_never_followed(committed, tmp_path, level):
    target = committed / PRIMARY if level == "machine" else committed / PRIMARY / "machine.ceilings"
    moved = tmp_path / "moved"
    shutil.move(target, moved)
    target.symlink_to(moved)
    with pytest.raises(store.StoreError, match="a symbolic link"):
        store.load("machine.ceilings", PRIMARY)
    assert store.status("machine.ceilings", PRIMARY) == store.CORRUPT


def test_a_pipe_in_a_results_folder_does_not_hang_list(committed):
    """Reading a pipe waits for a writer forever (a link to /dev/zero, for memory); neither is read."""
    fifo = committed / PRIMARY / "torch_compile.modes" / "20261202T000000Z.json"
    os.mkfifo(fifo)
    env = {**os.environ, "KERNELBOOK_RESULTS": str(committed)}
    out = subprocess.run([sys.executable, "-m", "kernelbook", "list"], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"corrupt: {fifo}: not a plain file" in out.stdout


def test_list_into_a_closed_pipe_ends_quietly(fixture_results):
    """`python -m kernelbook list | head -1`: the reader stops reading; here it stops before the first line, so
    that every write of the command meets the closed pipe."""
    proc = subprocess.Popen([sys.executable, "-m", "kernelbook", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 141 and err == "", err


# ---- 8. more ways a stored file or a pull request goes wrong -----------------------------------------------------

def test_a_copy_of_a_run_under_another_start_is_corrupt(committed):
    """A run filed twice (its start moved by a second) joins the medians twice."""
    src = runs_of(committed, "machine.ceilings")[-1]
    start = store.started(json.loads(src.read_text())["provenance"]["started_utc"]) + timedelta(seconds=1)
    copy = _forge(committed, "machine.ceilings", stamp_of(start), start.isoformat(timespec="seconds"))
    with pytest.raises(store.StoreError, match=f"{copy.name}: a copy of {src.name}"):
        store.runs("machine.ceilings", PRIMARY)


def test_published_figures_beside_measured_runs_are_corrupt(committed):
    """published.json in a measured folder hid every run behind the figures it holds."""
    pub = json.loads((committed / "nvidia-geforce-rtx-4060-laptop-gpu" / "machine.ceilings" / "published.json")
                     .read_text())
    pub["machine"] = PRIMARY
    (committed / PRIMARY / "machine.ceilings" / "published.json").write_text(json.dumps(pub))
    with pytest.raises(store.StoreError, match="published figures .* beside measured runs"):
        store.load("machine.ceilings", PRIMARY)


def test_merge_refuses_a_run_whose_name_is_not_its_start(committed, tmp_path, capsys):
    art = tmp_path / "artifact"
    src = runs_of(committed, "torch_compile.modes")[-1]
    dst = art / PRIMARY / "torch_compile.modes" / "20991231T000000Z.json"
    dst.parent.mkdir(parents=True)
    shutil.copy(src, dst)
    assert cli.main(["merge", str(art), "--into", str(committed)]) == 1
    assert "named 20991231T000000Z but it started at" in capsys.readouterr().err
    assert not (committed / PRIMARY / "torch_compile.modes" / dst.name).exists()


def test_merge_of_the_committed_results_into_themselves_is_nothing_new(committed, tmp_path, capsys):
    """The README's step: merging a folder whose files are the stored ones, byte for byte (the publish job's whole
    `results` artifact into a clone of its commit): nothing to copy, nothing refused (29 runs of older code that
    today's schemas refuse stopped it)."""
    again = tmp_path / "artifact"
    shutil.copytree(ROOT / "results", again)
    n = len([p for p in again.glob("*/*/*.json")])
    assert cli.main(["merge", str(again), "--into", str(committed)]) == 0
    assert f"kernelbook merge: 0 new into {committed}, {n} already there" in capsys.readouterr().out


def test_run_into_stores_only_the_new_runs_in_the_folder_named(fixture_results, tmp_path, monkeypatch, capsys):
    from kernelbook import runner

    calls = []
    monkeypatch.setattr(runner, "gpu_slug", lambda: PRIMARY)
    monkeypatch.setattr(runner, "run_one", lambda name, machine, t, into=None: (calls.append(into), (True, ""))[1])
    assert cli.main(["run", "machine.ceilings", "--into", str(tmp_path / "measured")]) == 0
    assert calls == [tmp_path / "measured"]
    (tmp_path / "a-file").write_text("")
    assert cli.main(["run", "machine.ceilings", "--into", str(tmp_path / "a-file")]) == 2
    assert "--into" in capsys.readouterr().err and len(calls) == 1

