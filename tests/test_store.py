"""The result store: runs kept side by side, fresh/stale from the files a run recorded, atomic writes, corrupt
files named with the fix."""

from __future__ import annotations

import json
import os

import pytest

from kernelbook import paths, registry, store
from kernelbook.registry import Experiment


@pytest.fixture
def toy(tmp_path, monkeypatch, toy_schema):
    """A repository root with three files, two of them the package's; experiment 'toy.exp' declares c.txt (read as
    text)."""
    (tmp_path / "src" / "kernelbook").mkdir(parents=True)
    for name, text in ((A, "A = 1\n"), (B, "B = 1\n"), ("c.txt", "shown\n")):
        (tmp_path / name).write_text(text)
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    exp = Experiment("toy.exp", f"{__name__}:toy_measure", "a toy", 30, declared=("c.txt",), previous=("toy.old",))
    monkeypatch.setitem(registry.BY_NAME, exp.name, exp)
    return exp


A, B = "src/kernelbook/a.py", "src/kernelbook/b.py"


def toy_measure() -> dict:
    return {"value": 42.5, "rows": [1, 2, 3]}


def _save(files: tuple[str, ...] = (A, "c.txt"), started: str = "2026-12-01T07:12:03+00:00",
          data: object = None, name: str = "toy.exp") -> None:
    hashes = store.file_hashes(files)
    store.save(name, "gpu-x", data if data is not None else {"v": 1},
               {"started_utc": started, "code_hash": store.combined_hash(hashes), "source_hashes": hashes})


def test_a_run_is_stale_exactly_when_a_file_it_recorded_changes(toy, tmp_path):
    _save()
    assert store.load("toy.exp", "gpu-x").status == store.FRESH
    (tmp_path / B).write_text("B = 2\n")  # not recorded by the run: no effect
    assert store.status("toy.exp", "gpu-x") == store.FRESH
    (tmp_path / A).write_text("A = 2\n")  # recorded: stale, and says which file
    res = store.load("toy.exp", "gpu-x")
    assert res.stale and res.changed == [A]


def test_a_removed_source_or_an_unrecorded_declared_file_makes_it_stale(toy, tmp_path):
    _save(files=(A,))
    assert store.load("toy.exp", "gpu-x").changed == ["c.txt (not recorded)"]
    _save(started="2026-12-01T08:00:00+00:00")
    (tmp_path / A).unlink()
    assert store.load("toy.exp", "gpu-x").changed == [f"{A} (removed)"]


def test_runs_are_kept_and_load_prefers_the_newest_fresh_one(toy, tmp_path):
    _save(data={"v": 1}, started="2026-12-01T07:00:00+00:00")
    _save(data={"v": 2}, started="2026-12-01T08:00:00+00:00")
    (tmp_path / A).write_text("A = 3\n")  # both runs are now of older code
    _save(data={"v": 3}, started="2026-12-01T06:00:00+00:00", files=(B, "c.txt"))  # fresh, but started first
    runs = store.runs("toy.exp", "gpu-x")
    assert [r.data["v"] for r in runs] == [3, 1, 2] and [r.status for r in runs] == ["fresh", "stale", "stale"]
    assert store.load("toy.exp", "gpu-x").data == {"v": 3}
    (tmp_path / B).write_text("B = 3\n")  # nothing fresh: the newest run, stale
    assert store.load("toy.exp", "gpu-x").data == {"v": 2} and store.load("toy.exp", "gpu-x").stale


def test_two_runs_in_one_second_both_stay(toy):
    _save(data={"v": 1})
    _save(data={"v": 2})
    assert sorted(p.name for p in store.experiment_dir("gpu-x", "toy.exp").iterdir()) == [
        "20261201T071203Z-1.json", "20261201T071203Z.json"]


def test_a_run_stored_under_a_previous_name_is_part_of_the_history(toy):
    _save()
    path = next(store.experiment_dir("gpu-x", "toy.exp").glob("*.json"))
    path.write_text(path.read_text().replace('"experiment": "toy.exp"', '"experiment": "toy.old"'))
    assert store.load("toy.exp", "gpu-x").status == store.FRESH
    path.write_text(path.read_text().replace('"experiment": "toy.old"', '"experiment": "other.exp"'))
    with pytest.raises(store.StoreError, match="holds experiment 'other.exp', not 'toy.exp'"):
        store.load("toy.exp", "gpu-x")


def test_atomic_write_keeps_the_folder_clean_when_interrupted(toy, monkeypatch):
    _save()
    folder = store.experiment_dir("gpu-x", "toy.exp")
    before = {p.name: p.read_text() for p in folder.iterdir()}

    def boom(src, dst):
        raise KeyboardInterrupt  # as if the run were killed between writing and renaming

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        _save(started="2026-12-02T00:00:00+00:00")
    assert {p.name: p.read_text() for p in folder.iterdir()} == before  # no temp file left behind


def test_nan_is_refused_and_nothing_is_written(toy):
    with pytest.raises(ValueError):
        _save(data={"v": float("nan")})
    assert not store.experiment_dir("gpu-x", "toy.exp").exists() or not any(
        store.experiment_dir("gpu-x", "toy.exp").iterdir())


@pytest.mark.parametrize("content, message", [
    ('{"schema": 1, "data": ', "not valid JSON"),
    ('{"hello": 1}', "not a kernelbook result"),
    (b'{"schema": 1, "kind": "measured", "data": "\xff"}', "not UTF-8 text"),
    ('{"schema": 1, "experiment": "toy.exp", "kind": "measured", "data": {}, "provenance": []}',
     "provenance is not an object"),
    ('{"schema": 1, "experiment": "toy.exp", "machine": "gpu-x", "kind": "measured", "data": {}, "provenance": {}}',
     "provenance.source_hashes is missing"),
    ('{"schema": 1, "experiment": "toy.exp", "kind": "quoted", "data": {}}', "neither 'measured' nor 'published'"),
    ('{"schema": 1, "experiment": "toy.exp", "machine": "gpu-x", "kind": "published", "data": {}}',
     "published figures go in"),
])
def test_a_bad_file_is_one_error_naming_it(toy, content, message):
    folder = paths.results_dir() / "gpu-x" / "toy.exp"
    folder.mkdir(parents=True)
    path = folder / "20261201T000000Z.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(store.StoreError, match=message) as e:
        store.load("toy.exp", "gpu-x")
    assert "20261201T000000Z.json" in str(e.value)
    assert store.status("toy.exp", "gpu-x") == store.CORRUPT


def test_a_stray_file_in_a_results_folder_is_named(toy):
    _save()
    (store.experiment_dir("gpu-x", "toy.exp") / ".toy.exp.abc.tmp").write_text("{}")  # ignored: not *.json
    assert store.status("toy.exp", "gpu-x") == store.FRESH
    (store.experiment_dir("gpu-x", "toy.exp") / "copy of run.json").write_text("{}")
    with pytest.raises(store.StoreError, match="copy of run.json is neither a run"):
        store.load("toy.exp", "gpu-x")


def test_published_figures_are_shown_as_published(toy):
    store.save("toy.exp", "gpu-x", {"figure": 1.5}, {"source": "an article"}, kind="published")
    res = store.load("toy.exp", "gpu-x")
    assert res.published and res.status == store.PUBLISHED and res.data == {"figure": 1.5}
    assert json.loads(res.path.read_text())["kind"] == "published" and res.path.name == "published.json"


@pytest.mark.parametrize("bad", ["../../etc", "nvidia-h200/../x", "NVIDIA H200", "", "a//b", "-x"])
def test_machine_names_cannot_leave_the_results_folder(toy, bad):
    with pytest.raises(paths.BadMachineName, match="not a machine slug"):
        store.load("toy.exp", bad)
    with pytest.raises(paths.BadMachineName):
        store.save("toy.exp", bad, {}, {"started_utc": "2026-12-01T00:00:00+00:00"})


def test_run_ids_come_from_the_start_time():
    assert store.run_id("2026-12-01T07:12:03+00:00") == "20261201T071203Z"
    with pytest.raises(store.StoreError, match="not an ISO time"):
        store.run_id("yesterday")
