"""Bad input, faults and the GPU runner (issue 25): every way a setting, a flag or a results file can be wrong gives
one clear line naming the file, the field or the machine and the fix, exits non-zero, and changes nothing stored.
A reader's results folder that cannot be read is left off the site, not allowed to break it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_file

from kernelbook import cli, page, paths, read, runner, store

READER = "nvidia-geforce-rtx-4090"  # a reader's GPU, its results arriving in a pull request


def snapshot(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def kb(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelbook", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def one_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


def reader_folder(results: Path, machine: str = READER) -> Path:
    """A copy of the primary machine's runs filed as another machine's, as a reader's `run --all` leaves them."""
    dst = results / machine
    shutil.copytree(results / "nvidia-h200", dst)
    for f in dst.rglob("*.json"):
        rec = json.loads(f.read_text())
        rec["machine"] = machine
        f.write_text(json.dumps(rec))
    return dst


@pytest.fixture
def no_gpu_probe(monkeypatch):
    """A flag error must be reported before the runner looks for a GPU."""
    def probe():
        raise AssertionError("looked for a GPU before refusing the command line")
    monkeypatch.setattr(runner, "gpu_slug", probe)


# ---- measure mode on the wrong machine --------------------------------------------------------------------------

@pytest.mark.parametrize("gpu, message", [
    (None, "KERNELBOOK_MODE=measure but no CUDA GPU is visible"),
    (READER, f"KERNELBOOK_MODE=measure on {READER}, but the site shows nvidia-h200"),
])
def test_measure_mode_without_the_primary_gpu_fails(fixture_results, monkeypatch, gpu, message):
    monkeypatch.setenv("KERNELBOOK_MODE", "measure")
    monkeypatch.setattr(read, "_gpu_slug", lambda: gpu)
    monkeypatch.setattr(read, "_measure", lambda *a: pytest.fail("measured on the wrong machine"))
    before = snapshot(fixture_results)
    with pytest.raises(page.MeasureError, match=message):
        page.result("machine.ceilings")
    with pytest.raises(page.MeasureError, match=message):
        page.check_build()
    assert snapshot(fixture_results) == before


def test_measure_mode_shows_other_machines_as_stored(fixture_results, monkeypatch):
    monkeypatch.setenv("KERNELBOOK_MODE", "measure")
    monkeypatch.setattr(read, "_gpu_slug", lambda: None)
    assert page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").published


# ---- mkdocs build: stops before rendering, one line -------------------------------------------------------------

def mkdocs_build(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "KERNELBOOK_MODE": "replay",
                              "PYTHONPATH": str(ROOT / "src"), **env})
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    return out


def build_error(out: subprocess.CompletedProcess) -> str:
    """The one ERROR line a failed build printed."""
    assert out.returncode != 0
    errors = [line for line in out.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, out.stderr[-3000:]
    return errors[0]


@pytest.mark.slow  # a site build that starts torch to look for a GPU
def test_a_measure_build_on_a_machine_without_a_gpu_fails_with_one_line(tmp_path):
    if runner.gpu_slug() is not None:
        pytest.skip("this machine has a GPU")
    line = build_error(mkdocs_build(tmp_path, KERNELBOOK_MODE="measure"))
    assert "KERNELBOOK_MODE=measure but no CUDA GPU is visible" in line and "KERNELBOOK_MODE=replay" in line
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("env, message", [
    ({"KERNELBOOK_MACHINE": "../../etc"}, "KERNELBOOK_MACHINE '../../etc' is not a machine slug"),
    ({"KERNELBOOK_MACHINE": "nvidia-h200/../x"}, "is not a machine slug"),
    ({"KERNELBOOK_MODE": "sometimes"}, "KERNELBOOK_MODE='sometimes' is not a mode: use replay"),
    ({"KERNELBOOK_RESULTS": "/no/such/results"}, "KERNELBOOK_RESULTS names /no/such/results, which does not exist"),
    ({"KERNELBOOK_RESULTS": str(ROOT / "README.md")}, "which is a file, not a results folder"),
    ({"KERNELBOOK_MACHINE": "nvidia-h20"}, "KERNELBOOK_MACHINE nvidia-h20 has no results in"),
])
def test_a_build_with_a_bad_setting_fails_with_one_line(tmp_path, env, message):
    assert message in build_error(mkdocs_build(tmp_path, **env))


@pytest.mark.slow  # a site build that checks every committed result first
def test_a_build_with_a_corrupt_primary_result_names_the_file(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results)
    bad = run_file(results, "machine.ceilings")
    bad.write_text("{not json")
    line = build_error(mkdocs_build(tmp_path, KERNELBOOK_RESULTS=str(results)))
    assert f"{bad}: not valid JSON" in line and "restore it from git" in line


# ---- the command line -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["list"], ["check"], ["run", "machine.ceilings"]])
def test_a_primary_machine_that_is_a_path_is_refused(fixture_results, args):
    out = kb(*args, KERNELBOOK_MACHINE="../../etc")
    assert out.returncode == 2
    assert one_line(out.stderr).startswith("kernelbook: error: KERNELBOOK_MACHINE '../../etc' is not a machine slug")


@pytest.mark.parametrize("args", [["check", "--machine", "../../etc"], ["check", "--machine", "nvidia-h200/x"],
                                  ["run", "--all", "--machine", "../../etc"], ["check", "--machine", ""]])
def test_a_machine_flag_that_is_a_path_is_refused(fixture_results, args):
    out = kb(*args)
    assert out.returncode == 2
    assert "is not a machine slug" in one_line(out.stderr)


@pytest.mark.parametrize("args, message", [
    (["run"], "name at least one experiment, --all or --shard K/N"),
    (["run", "--all", "machine.ceilings"], "name experiments or give --all, not both"),
    (["run", "--all", "--timeout", "0"], "argument --timeout: '0' is not a number of seconds above zero"),
    (["run", "--all", "--timeout", "-5"], "argument --timeout: '-5' is not a number of seconds above zero"),
    (["run", "--all", "--timeout", "soon"], "argument --timeout: 'soon' is not a number of seconds"),
    (["run", "--all", "--timeout", "nan"], "is not a number of seconds above zero"),
    (["run", "--all", "--timeout", "inf"], "is not a number of seconds above zero"),
    (["run", "--all", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_flags_are_one_line_and_run_nothing(fixture_results, no_gpu_probe, capsys, args, message):
    before = snapshot(fixture_results)
    with pytest.raises(SystemExit) as e:
        code = cli.main(args)
        raise SystemExit(code)
    assert e.value.code == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith("kernelbook: error: ") and message in line
    assert snapshot(fixture_results) == before


@pytest.mark.parametrize("value, message", [
    ("/no/such/results", "KERNELBOOK_RESULTS names /no/such/results, which does not exist"),
    (str(ROOT / "README.md"), "which is a file, not a results folder"),
    (":", "names no folder"),
])
@pytest.mark.parametrize("args", [["list"], ["check"]])
def test_a_results_folder_that_is_missing_or_a_file_is_one_line(monkeypatch, capsys, value, message, args):
    monkeypatch.setenv("KERNELBOOK_RESULTS", value)
    assert cli.main(args) == 2
    assert message in one_line(capsys.readouterr().err)
    with pytest.raises(paths.BadSetting, match=message):
        page.result("machine.ceilings")


def test_a_second_results_folder_that_is_missing_is_refused(fixture_results, monkeypatch):
    monkeypatch.setenv("KERNELBOOK_RESULTS", f"{fixture_results}{os.pathsep}/no/such/results")
    with pytest.raises(paths.BadSetting, match="/no/such/results, which does not exist"):
        store.load("machine.ceilings")


def test_check_of_a_machine_without_results_says_so(fixture_results, capsys):
    assert cli.main(["check", "--machine", "nvidia-h20"]) == 1
    out = one_line(capsys.readouterr().out)
    assert "no results of nvidia-h20 in" in out and "machines with results: " in out and "nvidia-h200" in out


# ---- a reader's results folder that cannot be read --------------------------------------------------------------

def _break_json(path: Path) -> str:
    path.write_text('{"schema": 1, "data": ')
    return "not valid JSON"


def _wrong_machine(path: Path) -> str:
    rec = json.loads(path.read_text())
    rec["machine"] = "nvidia-h200"  # copied from the primary's folder as it was
    path.write_text(json.dumps(rec))
    return f"holds a result of machine 'nvidia-h200', not '{READER}'"


def _empty(path: Path) -> str:
    path.write_text("")
    return "empty file"


def _nan(path: Path) -> str:
    path.write_text(path.read_text().replace('"ridge_flop_per_byte": ', '"ridge_flop_per_byte": NaN, "x": ', 1))
    return "not valid JSON (NaN is not a JSON number)"


def _malformed(path: Path) -> str:
    rec = json.loads(path.read_text())
    rec["data"]["launch"]["launches"] = "many"  # valid JSON, but a string where its schema has a count
    path.write_text(json.dumps(rec))
    return '$.data.launch.launches is "many", expected an integer'


@pytest.mark.parametrize("breakage", [_break_json, _wrong_machine, _empty, _nan, _malformed])
def test_a_readers_broken_result_is_reported_and_left_off_the_site(fixture_results, capsys, breakage):
    reader_folder(fixture_results)
    bad = run_file(fixture_results, "machine.ceilings", READER)
    message = breakage(bad)
    before = snapshot(fixture_results)

    assert READER not in store.machines() and READER in store.machine_folders()
    assert f"{READER} left off the site" in capsys.readouterr().err
    assert READER not in page.results("machine.ceilings") and "nvidia-h200" in page.results("machine.ceilings")
    page.check_build()  # the primary's results are fine: the build goes on

    assert cli.main(["check", "--machine", READER]) == 1
    out = capsys.readouterr().out
    assert f"CORRUPT  machine.ceilings: {bad}: " in out and message in out

    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("machine.ceilings "))
    assert "corrupt" in row.split()
    assert f"corrupt: {bad}: " in out and message in out
    assert snapshot(fixture_results) == before


def test_a_readers_folder_that_reads_is_shown(fixture_results):
    reader_folder(fixture_results)
    assert READER in store.machines() and READER in page.results("machine.ceilings")


def test_a_file_where_an_experiment_folder_belongs_is_corrupt(fixture_results, capsys):
    folder = reader_folder(fixture_results) / "machine.ceilings"
    shutil.rmtree(folder)
    folder.write_text("{}")
    with pytest.raises(store.StoreError, match="a file where the folder of machine.ceilings's runs belongs"):
        store.load("machine.ceilings", READER)
    assert store.status("machine.ceilings", READER) == store.CORRUPT and READER not in store.machines()


def test_a_corrupt_primary_result_is_never_rendered(fixture_results):
    run_file(fixture_results, "machine.ceilings").write_text("[]")
    with pytest.raises(store.StoreError, match="not a kernelbook result"):
        page.result("machine.ceilings")
    with pytest.raises(store.StoreError, match="not a kernelbook result"):
        page.check_build()
    assert "nvidia-h200" in store.machines()  # the primary is never left off: its build must fail


def test_a_primary_machine_without_results_is_named_with_the_ones_there(fixture_results, monkeypatch):
    monkeypatch.setenv("KERNELBOOK_MACHINE", "nvidia-h20")  # a typo of nvidia-h200
    with pytest.raises(paths.BadSetting, match=r"KERNELBOOK_MACHINE nvidia-h20 has no results in .*\(machines with "
                                               r"results: nvidia-geforce-rtx-4060-laptop-gpu, nvidia-h200\)"):
        page.check_build()


@pytest.mark.parametrize("stray", ["machine.ceiling", "fusion.versions", "notes.txt"])
def test_a_stray_entry_in_a_machine_folder_is_named_by_check_and_list(fixture_results, capsys, stray):
    """A typo of an experiment's name, a renamed experiment's old folder, a file: nothing would read it."""
    folder = fixture_results / "nvidia-h200"
    if stray.endswith(".txt"):
        (folder / stray).write_text("hi")
    else:
        shutil.copytree(folder / "machine.ceilings", folder / stray)
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"STRAY    {folder / stray}: a {'file' if '.txt' in stray else 'folder'} that is not an experiment's " \
           f"folder" in out
    assert cli.main(["list"]) == 0
    assert f"stray: {folder / stray}: " in capsys.readouterr().out
    page.check_build()  # nothing reads it: the build goes on
    assert "nvidia-h200" in store.machines()


# ---- a save that was killed -------------------------------------------------------------------------------------

def test_a_temp_file_left_by_a_killed_save_is_ignored_by_the_store_and_by_git(fixture_results):
    folder = run_file(fixture_results, "machine.ceilings").parent
    (folder / ".machine.ceilings.k1ll3d.tmp").write_text('{"schema": 1, "da')
    assert store.status("machine.ceilings", "nvidia-h200") in (store.FRESH, store.STALE)
    assert "nvidia-h200" in store.machines()
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a clone of the repository")
    for rel in ("results/nvidia-h200/machine.ceilings/.machine.ceilings.k1ll3d.tmp",
                f"results/{READER}/machine.ceilings/.machine.ceilings.abc_12.tmp"):
        out = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", rel])
        assert out.returncode == 0, f"git would commit {rel}"
