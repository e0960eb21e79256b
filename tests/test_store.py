"""The result store: atomic writes, provenance, fresh/stale by declared sources, corrupt files."""

from __future__ import annotations

import json
import os

import pytest

from kernelbook import cli, provenance, registry, store
from kernelbook.registry import Experiment

PROV_KEYS = {"started_utc", "gpu", "sm_count", "memory_bytes", "versions", "git", "smi_start", "smi_end",
             "duration_s", "code_hash", "source_hashes", "driver"}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A repository root with two files; experiment 'toy.exp' declares only a.py."""
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "b.py").write_text("B = 1\n")
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    exp = Experiment("toy.exp", f"{__name__}:toy_measure", ("a.py",), "a toy", 30)
    monkeypatch.setitem(registry.BY_NAME, exp.name, exp)
    return exp


def toy_measure() -> dict:
    return {"value": 42.5, "rows": [1, 2, 3]}


def _save_fresh(exp: Experiment) -> None:
    h, files = store.code_hash(exp)
    store.save(exp.name, "gpu-x", {"v": 1}, {"code_hash": h, "source_hashes": files})


def test_fresh_then_stale_only_when_declared_source_changes(toy, tmp_path):
    _save_fresh(toy)
    assert store.load("toy.exp", "gpu-x").status == store.FRESH
    (tmp_path / "b.py").write_text("B = 2\n")  # undeclared: no effect
    assert store.status("toy.exp", "gpu-x") == store.FRESH
    (tmp_path / "a.py").write_text("A = 2\n")  # declared: stale, and says which file
    res = store.load("toy.exp", "gpu-x")
    assert res.stale and res.changed == ["a.py"]


def test_missing_declared_source_is_an_error(toy, tmp_path):
    (tmp_path / "a.py").unlink()
    with pytest.raises(store.StoreError, match="a.py does not exist"):
        store.code_hash(toy)


def test_atomic_write_keeps_the_old_record_when_interrupted(toy, monkeypatch):
    _save_fresh(toy)
    path = store.result_path("gpu-x", "toy.exp")
    before = path.read_text()

    def boom(src, dst):
        raise KeyboardInterrupt  # as if the run were killed between writing and renaming

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        store.save("toy.exp", "gpu-x", {"v": 2}, {})
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir()] == ["toy.exp.json"]  # no temp file left behind


def test_nan_is_refused_and_nothing_is_written(toy):
    with pytest.raises(ValueError):
        store.save("toy.exp", "gpu-x", {"v": float("nan")}, {})
    assert not store.result_path("gpu-x", "toy.exp").exists()


def test_corrupt_file_gives_one_clear_error(toy, capsys):
    path = store.result_path("gpu-x", "toy.exp")
    path.parent.mkdir(parents=True)
    path.write_text('{"schema": 1, "data": ')
    with pytest.raises(store.StoreError, match="toy.exp.json: not valid JSON"):
        store.load("toy.exp", "gpu-x")
    assert store.status("toy.exp", "gpu-x") == store.CORRUPT
    path.write_text('{"hello": 1}')
    with pytest.raises(store.StoreError, match="not a kernelbook result"):
        store.load("toy.exp", "gpu-x")


def test_child_records_data_and_full_provenance(toy, tmp_path, monkeypatch):
    """The subprocess side of `run`, with the GPU and nvidia-smi faked: the record has every provenance field."""
    monkeypatch.setattr(provenance, "device", lambda: {"gpu": "Fake GPU", "sm_count": 7, "memory_bytes": 1 << 30,
                                                        "capability": "9.0", "l2_bytes": 1})
    smi = {"clocks.sm": "1500", "clocks.mem": "2600", "power.limit": "700", "driver_version": "580.1"}
    monkeypatch.setattr(provenance, "nvidia_smi", lambda: dict(smi))
    monkeypatch.setattr(store, "code_hash", lambda e, root=None: ("h" * 16, {"a.py": "x"}))
    out = tmp_path / "out.json"
    assert cli.main(["_child", "toy.exp", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["data"] == {"value": 42.5, "rows": [1, 2, 3]}
    assert PROV_KEYS <= set(rec["provenance"])
    p = rec["provenance"]
    assert p["gpu"] == "Fake GPU" and p["driver"] == "580.1" and p["smi_end"]["power.limit"] == "700"
    assert {"torch", "triton", "transformers", "cuda", "python"} <= set(p["versions"])
    assert set(p["git"]) == {"commit", "dirty"}


def test_provenance_refuses_to_run_without_a_gpu():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        provenance.device()
