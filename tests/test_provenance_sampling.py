"""What a run records of its machine (issue 57): the host around the GPU, and the GPU's clocks, power and temperature
sampled while the experiment runs. On this CPU machine nvidia-smi is a stand-in script on PATH."""

from __future__ import annotations

import os
import stat
import time

from kernelbook import provenance


def _fake_smi(tmp_path, lines: list[str], pause_s: float = 0.02) -> None:
    """An nvidia-smi that prints `lines` one by one, then waits to be stopped, as `-lms` does."""
    script = tmp_path / "nvidia-smi"
    body = "".join(f"echo '{ln}'; sleep {pause_s}\n" for ln in lines)
    script.write_text(f"#!/bin/sh\n{body}sleep 30\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def _sampled(tmp_path, monkeypatch, n: int) -> dict:
    """The Sampler's summary once the stand-in nvidia-smi in tmp_path has given n readings (or 5 s passed)."""
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    with provenance.Sampler(every_ms=20) as s:
        deadline = time.time() + 5
        while len(s.samples) < n and time.time() < deadline:
            time.sleep(0.02)
    return s.summary()


def test_the_sampler_keeps_each_reading_and_summarises_them(tmp_path, monkeypatch):
    _fake_smi(tmp_path, ["1980, 3201, 412.5, 51, 97", "[N/A], 3201, 400, 52, 90", "1755, 3201, 398.0, 53, 0",
                         "1980, 3201"])
    out = _sampled(tmp_path, monkeypatch, 2)
    assert out["n"] == 2  # the N/A line and the torn one are not readings
    assert out["stats"]["clocks.sm"] == {"min": 1755.0, "median": 1867.5, "max": 1980.0}
    assert out["stats"]["temperature.gpu"]["max"] == 53.0
    assert [len(x) for x in out["samples"]] == [6, 6] and out["fields"][0] == "t_s"
    assert out["busy"]["n"] == 1 and out["busy"]["stats"]["clocks.sm"]["median"] == 1980.0  # a kernel ran in one


def test_without_nvidia_smi_there_are_no_samples_and_no_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing to run
    with provenance.Sampler() as s:
        pass
    assert s.summary()["n"] == 0 and s.summary()["stats"] == {} and s.summary()["busy"] == {"n": 0, "stats": {}}


def test_many_samples_are_thinned_to_the_kept_number():
    s = provenance.Sampler()
    s.samples = [(i * 0.5, 1980.0, 3201.0, 400.0, 50.0, float(i % 2)) for i in range(1000)]
    out = s.summary()
    assert out["n"] == 1000 and len(out["samples"]) <= provenance.KEEP_SAMPLES
    assert out["samples"][0][0] == 0.0 and out["stats"]["power.draw"]["median"] == 400.0
    assert out["busy"]["n"] == 500  # the stats of the busy samples are over all of them, never the thinned ones


def test_the_host_is_named():
    h = provenance.host()
    assert h["vcpus"] == os.cpu_count() and 1 <= h["usable_cpus"] <= h["vcpus"]
    assert h["kernel"] and (h["cpu_model"] is None or isinstance(h["cpu_model"], str))


def test_a_gpu_that_does_not_report_utilization_still_gives_its_clocks(tmp_path, monkeypatch):
    _fake_smi(tmp_path, ["1980, 3201, 412.5, 51, [N/A]", "1755, 3201, 398.0, 53, [N/A]"])
    out = _sampled(tmp_path, monkeypatch, 2)
    assert out["n"] == 2 and out["stats"]["clocks.sm"]["min"] == 1755.0
    assert "utilization.gpu" not in out["stats"] and out["busy"] == {"n": 0, "stats": {}}  # busy is unknown: none
    assert [x[-1] for x in out["samples"]] == [None, None]  # stored as null, never as NaN (not JSON)
