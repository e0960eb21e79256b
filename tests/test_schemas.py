"""The data of every experiment is described once, as a JSON Schema (src/kernelbook/schemas/). The newest stored run
of each, its fixture and the published figures match; a copy that lacks a required key or holds a string where a
count belongs is corrupt, and the error names the file, the JSON path of the field and what was expected."""

from __future__ import annotations

import copy
import json
import shutil
from collections import deque
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, run_file

from kernelbook import cli, page, paths, runner, schema, store
from kernelbook.registry import EXPERIMENTS

NAMES = [e.name for e in EXPERIMENTS]
PRIMARY = "nvidia-h200"


def newest(results: Path, name: str, machine: str = PRIMARY) -> Path:
    return run_file(results, name, machine)


def published(name: str) -> list[Path]:
    return sorted((ROOT / "results").glob(f"*/{name}/published.json"))


def test_every_experiment_has_one_schema_and_every_schema_an_experiment():
    assert schema.names() == sorted(NAMES)
    for name in NAMES:
        doc = json.loads(schema.path_of(name).read_text())
        assert doc["title"] == name and doc["description"]


@pytest.mark.parametrize("path", sorted(p for p in schema.HERE.glob("*.json") if p.name != schema.HISTORY_FILE),
                         ids=lambda p: p.stem)
def test_each_schema_is_a_valid_json_schema_and_stays_open(path):
    from jsonschema import Draft202012Validator

    doc = json.loads(path.read_text())
    Draft202012Validator.check_schema(doc)
    assert '"additionalProperties": false' not in path.read_text(), "the data is open-ended: a new field is no error"
    assert max(map(len, path.read_text().splitlines())) <= 160, "keep the schema readable"


@pytest.mark.parametrize("name", NAMES)
def test_the_newest_stored_run_its_fixture_and_the_published_figures_match(name):
    files = [newest(ROOT / "results", name), newest(FIXTURES, name), *published(name)]
    for f in files:
        assert schema.problem(json.loads(f.read_text()), name) is None, f


def _leaves(value, path=()):
    """(path, value) of every leaf, shallowest first."""
    todo = deque([(path, value)])
    while todo:
        p, v = todo.popleft()
        if isinstance(v, dict):
            todo.extend(((*p, k), x) for k, x in v.items())
        elif isinstance(v, list):
            todo.extend(((*p, i), x) for i, x in enumerate(v[:3]))
        else:
            yield p, v


def _set(rec, path, value):
    target = rec
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value


def a_count(rec: dict, name: str) -> tuple[tuple, str]:
    """The path (from the record's root) of the shallowest value the schema types as an integer (a count), and
    "an integer"; for an experiment without counts, the shallowest number (a time) and "a number"."""
    for kind, expected in ((int, "an integer"), (float, "a number")):
        for path, v in _leaves(rec["data"], ("data",)):
            if isinstance(v, bool) or not isinstance(v, kind):
                continue
            bad = copy.deepcopy(rec)
            _set(bad, path, "many")
            found = schema.problem(bad, name)
            if found and found.startswith(f"{schema.json_path(path)} is \"many\", expected {expected}"):
                return path, expected
    raise AssertionError(f"{name}: no number in its schema")


@pytest.fixture
def results(tmp_path, monkeypatch):
    """A copy of the committed results to break (KERNELBOOK_RESULTS points at it)."""
    d = tmp_path / "results"
    shutil.copytree(ROOT / "results", d)
    monkeypatch.setenv("KERNELBOOK_RESULTS", str(d))
    monkeypatch.setenv("KERNELBOOK_MODE", "replay")
    return d


def _corrupt(path: Path, field: str, expected: str) -> None:
    """Loading the file fails, naming the file, the field and what was expected; check and page.result agree."""
    name = path.parent.name
    with pytest.raises(store.StoreError) as e:
        store.load(name)
    msg = str(e.value)
    assert msg.startswith(f"{path}: {field} {expected}"), msg
    assert f"(schema src/kernelbook/schemas/{name}.json)" in msg
    assert store.status(name, PRIMARY) == store.CORRUPT
    with pytest.raises(store.StoreError, match="re-measure or restore it from git"):
        page.result(name)


@pytest.mark.parametrize("name", NAMES)
def test_a_run_without_a_required_key_is_corrupt_and_names_it(results, name):
    path = newest(results, name)
    rec = json.loads(path.read_text())
    key = json.loads(schema.path_of(name).read_text())["required"][0]
    del rec["data"][key]
    path.write_text(json.dumps(rec))
    _corrupt(path, f"$.data.{key}", "is missing")


@pytest.mark.parametrize("name", NAMES)
def test_a_string_in_a_count_is_corrupt_and_names_the_field(results, name):
    path = newest(results, name)
    rec = json.loads(path.read_text())
    where, expected = a_count(rec, name)
    _set(rec, where, "many")
    path.write_text(json.dumps(rec))
    _corrupt(path, schema.json_path(where), f'is "many", expected {expected}')


@pytest.mark.parametrize("name", [n for n in NAMES if published(n)])
def test_published_figures_without_a_required_key_are_corrupt(results, name):
    path = next(results.glob(f"*/{name}/published.json"))
    rec = json.loads(path.read_text())
    key = json.loads(schema.path_of(name).read_text())["$defs"]["published"]["required"][0]
    del rec["data"][key]
    path.write_text(json.dumps(rec))
    with pytest.raises(store.StoreError, match=rf"published.json: \$\.data\.{key} is missing"):
        store.load(name, path.parent.parent.name)


@pytest.mark.parametrize("name, where, value, message", [
    ("machine.ceilings", ("data", "launch", "eager_ms", "median"), -0.5,
     "$.data.launch.eager_ms.median is -0.5, expected a number >= 0"),
    ("machine.ceilings", ("data", "bandwidth", "copy", "gbps"), "fast",
     '$.data.bandwidth.copy.gbps is "fast", expected a number'),
    ("machine.ceilings", ("data", "bandwidth", "read", "values", 2), None,
     "$.data.bandwidth.read.values[2] is null, expected a number"),
    ("torch_compile.modes", ("data", "options", "reduce-overhead"), 5,
     '$.data.options["reduce-overhead"] is 5, expected an object'),
    ("machine.ceilings", ("provenance", "started_utc"), 20261201,
     "$.provenance.started_utc is 20261201, expected a string"),
    ("machine.ceilings", ("provenance", "sm_count"), "132", '$.provenance.sm_count is "132", expected an integer'),
    ("machine.ceilings", ("provenance", "git"), {"commit": "abc"}, "$.provenance.git.dirty is missing"),
    ("machine.ceilings", ("machine",), "NVIDIA H200", "holds a result of machine 'NVIDIA H200'"),
])
def test_the_message_says_where_and_what_was_expected(results, name, where, value, message):
    path = newest(results, name)
    rec = json.loads(path.read_text())
    _set(rec, where, value)
    path.write_text(json.dumps(rec))
    with pytest.raises(store.StoreError) as e:
        store.load(name)
    assert str(e.value).startswith(f"{path}: {message}"), str(e.value)


def test_check_names_the_file_and_the_field(results, capsys):
    path = newest(results, "torch_compile.recompiles")
    rec = json.loads(path.read_text())
    rec["data"]["frames"]["total"] = "3"
    path.write_text(json.dumps(rec))
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert f'CORRUPT  torch_compile.recompiles: {path}: $.data.frames.total is "3", expected an integer' in out


def test_a_new_field_is_not_an_error(results):
    path = newest(results, "machine.ceilings")
    rec = json.loads(path.read_text())
    rec["data"]["bandwidth"]["copy"]["a_new_reading"] = [1, "two"]
    rec["data"]["something_measured_later"] = {"x": 1}
    path.write_text(json.dumps(rec))
    assert store.load("machine.ceilings").data["something_measured_later"] == {"x": 1}


def test_an_experiment_without_a_schema_cannot_be_shown(results, monkeypatch, tmp_path):
    empty = tmp_path / "no-schemas"
    empty.mkdir()
    monkeypatch.setattr(schema, "SCHEMAS", empty)
    with pytest.raises(store.StoreError, match=r"cannot be checked: no schema .*machine\.ceilings\.json"):
        store.load("machine.ceilings")


@pytest.mark.parametrize("kept", [False, True], ids=["checked", "verdict-kept"])
def test_a_schema_that_is_not_a_json_schema_cannot_check_anything(results, monkeypatch, tmp_path, kept):
    """A schema document is checked against the draft's own schema once per content (the verdict kept with the
    results' verdicts): the broken one is refused the first time and again when its verdict comes from the cache."""
    d = tmp_path / "schemas"
    shutil.copytree(schema.HERE, d)
    (d / "machine.ceilings.json").write_text('{"$schema": "https://json-schema.org/draft/2020-12/schema", '
                                             '"type": "objekt"}')
    monkeypatch.setattr(schema, "SCHEMAS", d)
    if kept:  # a first process checked it and kept the verdict
        with pytest.raises(schema.SchemaFileError):
            schema._load(d / "machine.ceilings.json")
        schema._load.cache_clear()
    with pytest.raises(store.StoreError, match=r"machine\.ceilings\.json: not a valid JSON Schema \('objekt' is not"):
        store.load("machine.ceilings")
    schema._load.cache_clear()


def test_save_refuses_data_that_does_not_match_and_writes_nothing(results):
    before = sorted(p.name for p in (results / PRIMARY / "machine.ceilings").iterdir())
    data = json.loads(newest(results, "machine.ceilings").read_text())["data"]
    data["bandwidth"] = 5
    with pytest.raises(store.StoreError, match=r"does not match its schema, nothing stored: \$\.data\.bandwidth is 5, "
                                               r"expected an object"):
        store.save("machine.ceilings", PRIMARY, data, {"started_utc": "2026-12-02T00:00:00+00:00",
                                                       "source_hashes": {"a": "b"}})
    assert sorted(p.name for p in (results / PRIMARY / "machine.ceilings").iterdir()) == before


def test_the_runner_keeps_a_run_that_does_not_match_out_of_results(tmp_path, monkeypatch):
    """A measured run whose data breaks its schema is not stored; it is kept under .kb-tmp/rejected/ with the fix."""
    import sys

    monkeypatch.setenv("KERNELBOOK_RESULTS", str(tmp_path / "results"))
    monkeypatch.setattr(runner, "rejected_dir", lambda: tmp_path / "rejected")
    code = ('import json, kernelbook.timing; open(r"{out}", "w").write(json.dumps({{"data": {{"bandwidth": "x"}}, '
            '"provenance": {{"started_utc": "2026-12-02T00:00:00+00:00"}}}}))')
    monkeypatch.setattr(runner, "child_command", lambda name, out: [sys.executable, "-c", code.format(out=out)])
    ok, msg = runner.run_one("machine.ceilings", "gpu-x", 60)
    assert not ok and "does not match its schema, nothing stored: $.data.matmul is missing" in msg
    assert "kernelbook merge" in msg
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").rglob("*.json"))
    kept = list((tmp_path / "rejected" / "gpu-x" / "machine.ceilings").glob("2*.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["data"] == {"bandwidth": "x"}


def test_the_schemas_ship_with_the_package():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"schemas/*.json"' in pyproject and '"jsonschema' in pyproject
    assert paths.root() == ROOT


def _verdicts(rec: dict, name: str) -> tuple[bool, bool]:
    """(jsonschema-rs says valid, jsonschema says valid) for a record's data against today's schema."""
    part = "published" if rec.get("kind") == "published" else None
    slow, fast = schema._validator(schema.path_of(name), part)
    return fast.is_valid(rec["data"]), not list(slow.iter_errors(rec["data"]))


def test_jsonschema_rs_and_jsonschema_agree_on_every_committed_result():
    """jsonschema-rs decides (a hundred times faster), jsonschema writes the messages. On every stored record of
    today's code they agree that it is valid; on broken ones the tests above get jsonschema's message only because
    jsonschema-rs said invalid first."""
    pytest.importorskip("jsonschema_rs")
    checked = 0
    for name in NAMES:
        for path in [store.load(name).path, *published(name)]:
            rec = json.loads(path.read_text())
            assert _verdicts(rec, name) == (True, True), path
            checked += 1
    assert checked >= len(NAMES)


def test_without_jsonschema_rs_jsonschema_decides_alone(results, monkeypatch):
    monkeypatch.setattr(schema, "_fast", lambda *a: None)
    schema._validator.cache_clear()
    try:
        path = newest(results, "machine.ceilings")
        rec = json.loads(path.read_text())
        assert schema.problem(rec, "machine.ceilings") is None
        rec["data"]["bandwidth"]["copy"]["gbps"] = "fast"
        assert schema.problem(rec, "machine.ceilings").startswith('$.data.bandwidth.copy.gbps is "fast"')
    finally:
        schema._validator.cache_clear()


def test_where_the_two_disagree_jsonschema_rs_decides(results, monkeypatch):
    """jsonschema-rs's verdict stands: a record it refuses is refused in its own words when jsonschema finds nothing;
    one it accepts is accepted."""
    class Says:
        def __init__(self, valid: bool) -> None:
            self.valid = valid

        def is_valid(self, instance) -> bool:
            return self.valid

        def iter_errors(self, instance):
            yield type("Error", (), {"instance_path": ["bandwidth"], "message": "refused by jsonschema-rs"})()

    rec = json.loads(newest(results, "machine.ceilings").read_text())
    # the record's envelope is checked first, by the same pair: refused there
    for valid, broken, expected in ((False, False, "$.bandwidth: refused by jsonschema-rs (schema src/kernelbook/"),
                                    (True, True, None)):
        monkeypatch.setattr(schema, "_fast", lambda *a, v=valid: Says(v))
        schema._validator.cache_clear()
        try:
            data = copy.deepcopy(rec)
            if broken:
                data["data"]["bandwidth"]["copy"]["gbps"] = "fast"
            found = schema.problem(data, "machine.ceilings")
            assert found == expected if expected is None else found.startswith(expected), found
        finally:
            schema._validator.cache_clear()
