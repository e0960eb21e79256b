"""Scaling the GPU runner out, on the CPU: `run --shard K/N` measures a deterministic, timeout-balanced part of the
registry; `merge` copies the shards' results folders into results/, each file checked, nothing copied on a conflict
or a bad file; `check --commit` fails on a result not measured at the workflow's commit."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, run_file

from kernelbook import cli, runner, store
from kernelbook.registry import EXPERIMENTS

PRIMARY = "nvidia-h200"


# ---- shards -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(1, len(EXPERIMENTS) + 1))
def test_shards_cover_the_registry_once_balanced_by_timeout(n):
    split = runner.shards(n)
    assert split == runner.shards(n)  # deterministic
    assert len(split) == n and all(split)
    names = [e.name for shard in split for e in shard]
    assert sorted(names) == sorted(e.name for e in EXPERIMENTS) and len(set(names)) == len(names)
    order = [e.name for e in EXPERIMENTS]
    for shard in split:
        assert [e.name for e in shard] == sorted((e.name for e in shard), key=order.index)  # registry order
    totals = [sum(e.timeout_s for e in shard) for shard in split]
    assert max(totals) - min(totals) <= max(e.timeout_s for e in EXPERIMENTS)
    for shard in split:
        assert runner.job_minutes(shard) * 60 >= sum(e.timeout_s + runner.PER_EXPERIMENT_S for e in shard)


def test_two_shards_split_today_s_registry_about_in_half():
    totals = [sum(e.timeout_s for e in shard) for shard in runner.shards(2)]
    assert abs(totals[0] - totals[1]) <= 120 and sum(totals) == sum(e.timeout_s for e in EXPERIMENTS)


def test_run_shard_dry_run_prints_the_shard_and_its_total(capsys, monkeypatch):
    monkeypatch.setattr(runner, "gpu_slug", lambda: pytest.fail("a dry run looks for no GPU"))
    assert cli.main(["run", "--shard", "2/3", "--dry-run"]) == 0
    out = capsys.readouterr().out.splitlines()
    shard = runner.shards(3)[1]
    total = sum(e.timeout_s for e in shard)
    assert out[0].startswith(f"shard 2/3: {len(shard)} experiments, timeouts adding up to {total} s")
    assert f"a job needs {runner.job_minutes(shard)} min" in out[0]
    assert out[1:] == [f"would run {e.name} (timeout {e.timeout_s} s)" for e in shard]


def test_run_shard_measures_exactly_its_experiments(fixture_results, capsys, monkeypatch):
    ran = []
    monkeypatch.setattr(runner, "gpu_slug", lambda: "nvidia-h200")
    monkeypatch.setattr(runner, "run_one", lambda name, machine, t: (ran.append((name, machine, t)), (True, ""))[1])
    assert cli.main(["run", "--shard", "1/2", "--require-gpu", "nvidia-h200"]) == 0
    assert ran == [(e.name, "nvidia-h200", e.timeout_s) for e in runner.shards(2)[0]]


def test_run_refuses_a_gpu_other_than_the_one_the_job_asked_for(fixture_results, capsys, monkeypatch):
    monkeypatch.setattr(runner, "gpu_slug", lambda: "nvidia-geforce-rtx-4090")
    monkeypatch.setattr(runner, "run_one", lambda *a: pytest.fail("measured on the wrong GPU"))
    assert cli.main(["run", "--shard", "1/2", "--require-gpu", "nvidia-h200"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kernelbook: error: this machine's GPU is nvidia-geforce-rtx-4090, not nvidia-h200 "
                   "(--require-gpu): is the runner labelled with the wrong GPU?"]


N = len(EXPERIMENTS)


@pytest.mark.parametrize("args, message", [
    (["run", "--shard", "0/3"], "argument --shard: '0/3' is not K/N with 1 <= K <= N"),
    (["run", "--shard", "4/3"], "argument --shard: '4/3' is not K/N"),
    (["run", "--shard", "half"], "argument --shard: 'half' is not K/N"),
    (["run", "--shard", f"1/{N + 1}"], f"{N + 1} shards: there are {N} experiments to split, so 1 to {N} shards"),
    (["run", "--shard", "1/2", "machine.ceilings"], "--shard splits the whole registry: give it without names"),
    (["run", "--shard", "1/2", "--require-gpu", "../x"], "--require-gpu '../x' is not a machine slug"),
    (["shards", "0"], f"0 shards: there are {N} experiments"),
    (["shards", "two"], "argument N: invalid int value: 'two'"),
    (["shards", "2", "--gpu", "NVIDIA H200"], "--gpu 'NVIDIA H200' is not a machine slug"),
    (["merge", "results"], "the following arguments are required: --into"),
    (["check", "--commit", "main"], "argument --commit: 'main' is not a git commit hash"),
])
def test_bad_shard_merge_and_commit_flags_are_one_line(fixture_results, capsys, monkeypatch, args, message):
    monkeypatch.setattr(runner, "gpu_slug", lambda: pytest.fail("looked for a GPU before refusing the flags"))
    with pytest.raises(SystemExit) as e:
        raise SystemExit(cli.main(args))
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kernelbook: error: ") and message in err[0], err


def test_shards_json_is_a_matrix_per_gpu_and_shard(capsys):
    assert cli.main(["shards", "2", "--gpu", "nvidia-h200", "--gpu", "nvidia-geforce-rtx-4090", "--json"]) == 0
    include = json.loads(capsys.readouterr().out)["include"]
    assert [(e["gpu"], e["shard"], e["name"]) for e in include] == [
        ("nvidia-h200", "1/2", "1-of-2"), ("nvidia-h200", "2/2", "2-of-2"),
        ("nvidia-geforce-rtx-4090", "1/2", "1-of-2"), ("nvidia-geforce-rtx-4090", "2/2", "2-of-2")]
    assert [e["timeout_minutes"] for e in include[:2]] == [runner.job_minutes(s) for s in runner.shards(2)]


# ---- merge ------------------------------------------------------------------------------------------------------

def _fresh_run(results: Path, name: str, machine: str = PRIMARY, started: str = "2026-12-02T03:04:05+00:00",
               commit: str = "c0ffee" * 6 + "c0ff") -> Path:
    """A run as a shard's job stores it: the fixture's data, hashes of today's code, git at `commit`."""
    hashes = store.file_hashes(["src/kernelbook/timing.py", *store.get(name).declared])
    data = json.loads(run_file(FIXTURES, name).read_text())["data"]
    return store.save(name, machine, data, {"started_utc": started, "source_hashes": hashes,
                                            "git": {"commit": commit, "dirty": False}}, into=results)


@pytest.fixture
def shards_of(tmp_path):
    """results/ (a copy of the fixtures) and two shard artifacts: each the same copy plus its own new runs."""
    main = tmp_path / "results"
    shutil.copytree(FIXTURES, main)
    arts = []
    for k, names in enumerate((["machine.ceilings", "decode.six_ways"], ["torch_compile.modes"]), 1):
        art = tmp_path / "incoming" / f"results-{PRIMARY}-{k}-of-2"
        shutil.copytree(FIXTURES, art)
        for name in names:
            _fresh_run(art, name)
        arts.append(art)
    return main, arts


def test_merge_copies_each_shards_new_runs_in(shards_of, capsys):
    main, arts = shards_of
    before = {p: p.read_bytes() for p in main.rglob("*.json")}
    assert cli.main(["merge", *map(str, arts), "--into", str(main)]) == 0
    out = capsys.readouterr().out
    assert f"kernelbook merge: 3 new into {main}, {2 * len(before)} already there" in out
    new = {p for p in main.rglob("*.json")} - set(before)
    assert {p.parent.name for p in new} == {"machine.ceilings", "decode.six_ways", "torch_compile.modes"}
    assert all(p.read_bytes() == before[p] for p in before)
    assert cli.main(["merge", *map(str, arts), "--into", str(main)]) == 0  # again: nothing new, nothing changed
    assert "0 new" in capsys.readouterr().out


def test_merged_runs_are_what_load_shows(shards_of, monkeypatch):
    main, arts = shards_of
    assert cli.main(["merge", *map(str, arts), "--into", str(main)]) == 0
    monkeypatch.setenv("KERNELBOOK_RESULTS", str(main))
    res = store.load("torch_compile.modes", PRIMARY)
    assert res.status == store.FRESH and res.run == "20261202T030405Z"


def _refused(arts: list[Path], main: Path, capsys, message: str) -> str:
    before = sorted((p, p.read_bytes()) for p in main.rglob("*") if p.is_file())
    assert cli.main(["merge", *map(str, arts), "--into", str(main)]) == 1
    err = capsys.readouterr().err
    assert message in err and "nothing merged into" in err, err
    assert sorted((p, p.read_bytes()) for p in main.rglob("*") if p.is_file()) == before
    return err


def test_a_conflicting_file_stops_the_merge_before_anything_is_copied(shards_of, capsys):
    main, arts = shards_of
    new = next((arts[1] / PRIMARY / "torch_compile.modes").glob("202612*.json"))
    clash = arts[0] / PRIMARY / "torch_compile.modes" / new.name
    shutil.copy(new, clash)
    rec = json.loads(clash.read_text())
    rec["data"]["sm_count"] = 114  # the same run name, other numbers
    clash.write_text(json.dumps(rec))
    _refused(arts, main, capsys, f"{new}: {main / PRIMARY / 'torch_compile.modes' / new.name} already holds other "
                                 f"bytes under that name")


def test_a_file_that_differs_from_the_stored_one_is_never_overwritten(shards_of, capsys):
    main, arts = shards_of
    stored = run_file(arts[0], "machine.ceilings")  # the fixture's run, also in results/
    stored = next(p for p in stored.parent.glob("202601*.json"))
    stored.write_text(stored.read_text().replace('"schema": 1', '"schema": 1, "note": "edited"', 1))
    _refused(arts, main, capsys, "already holds other bytes under that name; a result is never overwritten")


def _schema_break(path: Path) -> str:
    rec = json.loads(path.read_text())
    rec["data"]["sm_count"] = "many"
    path.write_text(json.dumps(rec))
    return '$.data.sm_count is "many", expected an integer'


def _not_json(path: Path) -> str:
    path.write_text("{")
    return "not valid JSON"


def _other_machine(path: Path) -> str:
    rec = json.loads(path.read_text())
    rec["machine"] = "nvidia-a100"
    path.write_text(json.dumps(rec))
    return "holds a result of machine 'nvidia-a100', not 'nvidia-h200'"


@pytest.mark.parametrize("breakage", [_schema_break, _not_json, _other_machine])
def test_a_bad_record_stops_the_merge(shards_of, capsys, breakage):
    main, arts = shards_of
    bad = next((arts[1] / PRIMARY / "torch_compile.modes").glob("202612*.json"))
    err = _refused(arts, main, capsys, breakage(bad))
    assert f"kernelbook merge: {bad}: " in err


@pytest.mark.parametrize("setup, message", [
    (lambda art: (art / PRIMARY / "no.such_experiment").mkdir(), "not an experiment in the registry"),
    (lambda art: (art / "NVIDIA H200").mkdir(), "not a machine slug"),
    (lambda art: (art / PRIMARY / "machine.ceilings" / "copy of run.json").write_text("{}"),
     "neither a run (<UTC start>.json) nor published.json"),
    (lambda art: os.symlink("/etc/passwd", art / PRIMARY / "machine.ceilings" / "20261202T000000Z.json"),
     "not a plain file"),
    (lambda art: os.symlink("/etc", art / "nvidia-h100"), "a symlink"),
    (lambda art: (art / PRIMARY / "notes.txt").write_text("hi"), "not a folder of an experiment's runs"),
])
def test_anything_but_results_files_stops_the_merge(shards_of, capsys, setup, message):
    main, arts = shards_of
    setup(arts[0])
    _refused(arts, main, capsys, message)


def test_a_machine_folder_given_for_a_results_folder_is_named(shards_of, capsys):
    main, arts = shards_of
    _refused([arts[0] / PRIMARY], main, capsys, "an experiment's folder: give the results folder that holds the "
                                                "machine folders")


@pytest.mark.parametrize("which", ["missing", "into itself", "into missing"])
def test_merge_folders_that_are_not_there(shards_of, capsys, tmp_path, which):
    main, arts = shards_of
    if which == "missing":
        _refused([tmp_path / "no-such-artifact"], main, capsys, "not a folder of results")
    elif which == "into itself":
        _refused([main], main, capsys, "is the folder to merge into")
    else:
        assert cli.main(["merge", str(arts[0]), "--into", str(tmp_path / "nowhere")]) == 1
        assert "the folder to merge into does not exist" in capsys.readouterr().err
        assert not (tmp_path / "nowhere").exists()


def test_merge_skips_temp_files_and_notes(shards_of, capsys):
    main, arts = shards_of
    (arts[0] / PRIMARY / "machine.ceilings" / ".machine.ceilings.x1.tmp").write_text('{"half')
    (arts[0] / "PROBES.md").write_text("notes")
    assert cli.main(["merge", *map(str, arts), "--into", str(main)]) == 0
    assert not list(main.rglob("*.tmp")) and not (main / "PROBES.md").exists()


def test_the_same_new_run_in_two_artifacts_is_copied_once(shards_of, capsys):
    main, arts = shards_of
    new = next((arts[1] / PRIMARY / "torch_compile.modes").glob("202612*.json"))
    shutil.copy(new, arts[0] / PRIMARY / "torch_compile.modes" / new.name)
    assert cli.main(["merge", *map(str, arts), "--into", str(main)]) == 0
    assert "3 new" in capsys.readouterr().out


# ---- check --commit ---------------------------------------------------------------------------------------------

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_check_commit_passes_only_when_every_result_was_measured_at_that_commit(fixture_results, capsys):
    for e in EXPERIMENTS:
        _fresh_run(fixture_results, e.name, commit=COMMIT)
    assert cli.main(["check", "--commit", COMMIT]) == 0
    assert cli.main(["check", "--commit", COMMIT[:12]]) == 0
    capsys.readouterr()
    _fresh_run(fixture_results, "machine.ceilings", started="2026-12-02T05:00:00+00:00", commit="f" * 40)
    assert cli.main(["check", "--commit", COMMIT]) == 1
    out = capsys.readouterr().out
    assert "OTHER    machine.ceilings: " in out and f"was measured at ffffffffffff, not at {COMMIT[:12]}" in out
    assert out.count("OTHER") == 1


def test_check_commit_refuses_a_run_from_a_dirty_tree(fixture_results, capsys):
    for e in EXPERIMENTS:
        _fresh_run(fixture_results, e.name, commit=COMMIT)
    path = _fresh_run(fixture_results, "torch_compile.modes", started="2026-12-02T05:00:00+00:00", commit=COMMIT)
    rec = json.loads(path.read_text())
    rec["provenance"]["git"]["dirty"] = True
    path.write_text(json.dumps(rec))
    assert cli.main(["check", "--commit", COMMIT]) == 1
    assert f"was measured at {COMMIT[:12]} (dirty)" in capsys.readouterr().out


def test_the_committed_results_name_their_commits():
    """What check --commit reads is there in every committed measured run."""
    for f in (ROOT / "results").glob("*/*/2*.json"):
        git = json.loads(f.read_text())["provenance"]["git"]
        assert isinstance(git["commit"], str) and isinstance(git["dirty"], bool), f
