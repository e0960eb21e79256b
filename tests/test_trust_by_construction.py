"""Results a stranger can trust, part 2 (issue 58): no flag in a result file changes how it is checked, strict JSON,
a merge checked as the folder it produces, a reader's folder that cannot stop the primary's build, nothing under
results/ skipped without a word, one line for a bad setting in every command, notebooks written all or none. Each
case here failed on the code before the issue; the escaping of stored text is tests/test_site_from_a_stranger.py's
and tests/test_page.py's, the re-runnable upload tests/test_workflows.py's."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from test_bad_input import one_line, snapshot
from test_results_provenance import measured_files
from test_trust import PRIMARY, committed, edit, runs_of  # noqa: F401 - a fixture

from kernelbook import cli, notebooks, store

LAPTOP = "nvidia-geforce-rtx-4060-laptop-gpu"


# ---- 2. a run that calls itself a fixture is checked as any run --------------------------------------------------

def _future_fixture(results: Path) -> Path:
    """The issue's forgery: the newest compile_time run copied to 99991231T235959Z.json, marked fixture, started in
    2031, a figure changed."""
    newest = runs_of(results, "torch_compile.compile_time")[-1]
    forged = newest.with_name("99991231T235959Z.json")
    shutil.copy(newest, forged)

    def change(rec: dict) -> None:
        rec["provenance"].update(fixture=True, started_utc="2031-01-01T00:00:00+00:00")
        rec["data"]["note"] = "changed"
    edit(forged, change)
    return forged


def test_a_run_marked_fixture_is_checked_like_any_run(committed, capsys):  # noqa: F811
    forged = _future_fixture(committed)
    assert store.status("torch_compile.compile_time", PRIMARY) == store.CORRUPT
    with pytest.raises(store.StoreError, match="99991231T235959Z"):
        store.load("torch_compile.compile_time", PRIMARY)
    assert cli.main(["check"]) == 1 and f"CORRUPT  torch_compile.compile_time: {forged}" in capsys.readouterr().out


def test_a_fixture_named_by_its_start_but_in_the_future_is_still_refused(committed):  # noqa: F811
    newest = runs_of(committed, "torch_compile.compile_time")[-1]
    forged = newest.with_name("20310101T000000Z.json")
    shutil.copy(newest, forged)
    edit(forged, lambda rec: rec["provenance"].update(fixture=True, started_utc="2031-01-01T00:00:00+00:00"))
    with pytest.raises(store.StoreError, match="in the future"):
        store.load("torch_compile.compile_time", PRIMARY)


def test_a_copy_marked_fixture_is_still_a_copy(committed):  # noqa: F811
    newest = runs_of(committed, "machine.ceilings")[-1]
    rec = edit(newest, lambda rec: rec["provenance"].update(fixture=True))  # both marked: the check was skipped
    rec["provenance"]["started_utc"] = "2026-12-06T00:00:00+00:00"
    (newest.parent / "20261206T000000Z.json").write_text(json.dumps(rec))
    with pytest.raises(store.StoreError, match="a copy of"):
        store.runs("machine.ceilings", PRIMARY)


def test_the_provenance_test_reads_every_run_file_whatever_its_name(committed):  # noqa: F811
    forged = _future_fixture(committed)
    assert forged in measured_files()


# ---- 3. strict JSON ------------------------------------------------------------------------------------------------

def _rewrite(path: Path, text: str) -> None:
    path.write_text(text)


@pytest.mark.parametrize("case, message", [
    ("duplicate data", "the key 'data' appears twice in one object"),
    ("overflow", "the number 1e999 overflows to inf"),
    ("deep", "objects and arrays nested deeper than 64"),
    ("too deep to parse", "objects and arrays nested deeper than 64"),
])
@pytest.mark.parametrize("checker", ["installed", "without jsonschema-rs"])
def test_json_that_is_not_strict_is_corrupt_with_one_line(fixture_results, monkeypatch, capsys, case, message, checker,
                                                          request):
    from kernelbook import schema

    if checker != "installed":  # the GPU image has no jsonschema-rs: 1e999 passed there, as infinity
        monkeypatch.setitem(sys.modules, "jsonschema_rs", None)  # its import fails
        schema._validator.cache_clear()
        request.addfinalizer(schema._validator.cache_clear)
    newest = runs_of(fixture_results, "machine.ceilings")[-1]
    text = newest.read_text()
    if case == "duplicate data":
        text = text.rstrip().removesuffix("}") + ', "data": {}}'
    elif case == "overflow":
        text = text.replace('"gbps": ', '"gbps": 1e999, "x": ', 1)
    elif case == "deep":
        text = text.rstrip().removesuffix("}") + ', "deep": ' + "[" * 100 + "]" * 100 + "}"
    else:
        text = "[" * 2500 + "]" * 2500
    _rewrite(newest, text)
    with pytest.raises(store.StoreError) as err:
        store.load("machine.ceilings", PRIMARY)
    assert str(err.value) == f"{newest}: not valid JSON ({message}); re-measure or restore it from git"
    if checker != "installed":
        return  # the file is refused before any schema is asked: the rest is the same
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"CORRUPT  machine.ceilings: {newest}: not valid JSON ({message})" in out and "Traceback" not in out


def test_nesting_too_deep_ends_no_command_in_a_traceback(fixture_results, tmp_path, capsys):
    """2,500 levels in a 5 KB file: a RecursionError out of check, list and merge before issue 58."""
    committed = fixture_results  # noqa: F811 - the results to break, here the fixtures
    newest = runs_of(committed, "machine.ceilings")[-1]
    newest.write_text("[" * 2500 + "]" * 2500)
    assert cli.main(["check"]) == 1 and "nested deeper than 64" in capsys.readouterr().out
    assert cli.main(["list"]) == 0 and "nested deeper than 64" in capsys.readouterr().out
    incoming = tmp_path / "incoming"
    (incoming / PRIMARY / "machine.ceilings").mkdir(parents=True)
    shutil.move(newest, incoming / PRIMARY / "machine.ceilings" / newest.name)
    assert cli.main(["merge", str(incoming), "--into", str(committed)]) == 1
    assert "nested deeper than 64" in capsys.readouterr().err


# ---- 4. merge checks the folder it would produce -------------------------------------------------------------------

def test_a_merge_that_would_leave_a_corrupt_folder_changes_nothing(committed, tmp_path, capsys):  # noqa: F811
    """The laptop's published record with its machine edited to the H200's: alone it reads; beside the H200's runs
    it hides them."""
    incoming = tmp_path / "incoming"
    src = committed / LAPTOP / "machine.ceilings" / "published.json"
    dst = incoming / PRIMARY / "machine.ceilings" / "published.json"
    dst.parent.mkdir(parents=True)
    shutil.copy(src, dst)
    edit(dst, lambda rec: rec.update(machine=PRIMARY))
    assert store.check_file(dst, "machine.ceilings", PRIMARY) is None  # each file alone passes
    before = snapshot(committed)
    assert cli.main(["merge", str(incoming), "--into", str(committed)]) == 1
    err = capsys.readouterr().err
    assert "after the merge" in err and "published figures (published.json) beside measured runs" in err, err
    assert snapshot(committed) == before and store.status("machine.ceilings", PRIMARY) == store.FRESH


def test_a_merge_that_would_store_a_copy_twice_changes_nothing(committed, tmp_path, capsys):  # noqa: F811
    newest = runs_of(committed, "machine.ceilings")[-1]
    rec = json.loads(newest.read_text())
    rec["provenance"]["started_utc"] = "2026-12-06T00:00:00+00:00"
    dst = tmp_path / "incoming" / PRIMARY / "machine.ceilings" / "20261206T000000Z.json"
    dst.parent.mkdir(parents=True)
    dst.write_text(json.dumps(rec))
    before = snapshot(committed)
    assert cli.main(["merge", str(tmp_path / "incoming"), "--into", str(committed)]) == 1
    assert "a copy of" in capsys.readouterr().err and snapshot(committed) == before


# ---- 5. a reader's folder never stops the primary's build ----------------------------------------------------------

def test_a_readers_folder_that_reads_like_the_primary_gives_way(committed):  # noqa: F811
    reader = committed / "nvidia-geforce-h200"
    shutil.copytree(committed / PRIMARY, reader)
    for f in reader.rglob("*.json"):
        edit(f, lambda rec: rec.update(machine="nvidia-geforce-h200"))
    assert store.machine_label(PRIMARY) == "H200"
    assert store.machine_label("nvidia-geforce-h200") == "nvidia-geforce-h200"
    from kernelbook.chapters.decode_far import facts as far

    assert far.facts(PRIMARY).anchors_same_gpu  # the guard decode_far.anchors reads the primary's label


# ---- 7. nothing under results/ is skipped without a word -----------------------------------------------------------

@pytest.mark.parametrize("stray", ["run", "folder", "file"])
def test_an_entry_the_store_would_not_read_is_named_by_check_and_list(fixture_results, capsys, stray):
    committed = fixture_results  # noqa: F811 - the results to break, here the fixtures
    if stray == "run":
        newest = runs_of(committed, "machine.ceilings")[-1]
        path = newest.with_name("20991231T235959Z.JSON")
        shutil.copy(newest, path)
    elif stray == "folder":
        path = committed / "NVIDIA_H200"
        shutil.copytree(committed / PRIMARY, path)
    else:
        path = committed / "notes.txt"
        path.write_text("hi")
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert str(path) in out, out
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.count(str(path)) == 1, out


def test_a_note_at_the_results_top_is_no_stray(fixture_results):
    (fixture_results / "PROBES.md").write_text("# probes\n")
    assert store.top_strays() == []


@pytest.mark.parametrize("args", [["check"], ["list"], ["merge", "results", "--into", "results"], ["notebooks"],
                                  ["shards", "1"], ["schemas"]])
def test_a_bad_mode_is_one_line_in_every_command(monkeypatch, capsys, args):
    """`check` printed 209 guard lines advising to rewrite paragraphs; the build said it in one."""
    monkeypatch.setenv("KERNELBOOK_MODE", "bogus")
    assert cli.main(args) == 2
    out = capsys.readouterr()
    assert out.out == "" and one_line(out.err).startswith("kernelbook: error: KERNELBOOK_MODE='bogus' is not a mode")


def _notebooks(tmp_path: Path, monkeypatch) -> dict[Path, str]:
    """Three notebooks to write, the last of them where a folder stands: a target that cannot be written."""
    folder = tmp_path / "docs" / "notebooks"
    folder.mkdir(parents=True)
    texts = {folder / f"{stem}.ipynb": f'{{"cells": [], "name": "{stem}"}}\n' for stem in ("a", "b", "c")}
    (folder / "a.ipynb").write_text("old a\n")
    (folder / "c.ipynb").mkdir()
    monkeypatch.setattr(notebooks, "render_all", lambda: texts)
    return texts


def test_notebooks_are_written_all_or_none(tmp_path, monkeypatch):
    texts = _notebooks(tmp_path, monkeypatch)
    folder = next(iter(texts)).parent
    with pytest.raises(notebooks.NotebookError, match="c.ipynb"):
        notebooks.write_all()
    assert (folder / "a.ipynb").read_text() == "old a\n" and not (folder / "b.ipynb").exists()
    assert sorted(p.name for p in folder.iterdir()) == ["a.ipynb", "c.ipynb"]  # no temp file left
    (folder / "c.ipynb").rmdir()
    assert notebooks.write_all() == list(texts) and all(p.read_text() == t for p, t in texts.items())


def test_notebooks_command_names_a_target_it_cannot_write_in_one_line(tmp_path, monkeypatch, capsys):
    _notebooks(tmp_path, monkeypatch)
    assert cli.main(["notebooks"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "c.ipynb" in one_line(out.err) and "Traceback" not in out.err
