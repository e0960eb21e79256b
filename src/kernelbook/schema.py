"""What a results file must hold: one JSON Schema per experiment, and one for what every file shares.

    src/kernelbook/schemas/record.json        the envelope (schema, experiment, machine, kind) and the provenance
    src/kernelbook/schemas/common.json        shapes many experiments share (a timing summary, a comparison, ...)
    src/kernelbook/schemas/<experiment>.json  the data of a measured run; its $defs/published, the smaller record
                                              of figures quoted from elsewhere (<experiment>/published.json)

A file that breaks its schema is corrupt: `problem` says where, as the JSON path of the field in the file, and what
was expected ("$.data.bandwidth.copy.gbps is 'fast', expected a number"). The store asks before it shows a result,
the runner before it stores one, `merge` before it copies one in. Schemas are read, and jsonschema imported, on
first use. The schemas describe what the pages read and what the data is, not every detail: maps keep their
open-ended keys (no additionalProperties: false), and a new field in a run is not an error.

Every run is checked, its history too. The envelope and the provenance always against today's record.json (they are
the engine's: what the store trusts); the data of a run of the current code, and published figures, against today's
<experiment>.json; the data of a run of older code against the schema it was stored under, which a schema edit must
not take away:

    src/kernelbook/schemas/history.json       every version of a data schema and of common.json a run was stored
                                              under, by hash (`digest`: of the document, not of its formatting), and
                                              the versions the runs stored before runs named theirs were stored under
                                              ("legacy": experiment -> code_hash -> versions)

`save` stamps each run with the versions it was checked against (provenance.schema_hashes: {"data", "common"});
after editing a schema, `python -m kernelbook schemas --keep` adds the new versions to history.json (a test fails
until it does), so that today's runs can still be checked once their code is older.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "schemas"
RECORD, COMMON = HERE / "record.json", HERE / "common.json"
SCHEMAS = HERE  # where <experiment>.json are looked up (a test points it at its own)
HISTORY_FILE = "history.json"  # in SCHEMAS: the versions older runs were checked against
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TYPES = {"object": "an object", "array": "an array", "string": "a string", "number": "a number",
          "integer": "an integer", "boolean": "true or false", "null": "null"}


class SchemaFileError(RuntimeError):
    """A schema file that is missing or is not a valid JSON Schema: the code's fault, not the result's."""


def path_of(name: str) -> Path:
    return SCHEMAS / f"{name}.json"


@cache
def _load(path: Path) -> dict:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    from kernelbook import contentcache

    def meta_problem() -> str | None:  # against the draft's own schema: once per file content and jsonschema version
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as e:
            return e.message
        return None

    try:
        text = path.read_text(encoding="utf-8")
        schema = json.loads(text)
        key = repr(("schema-document", hashlib.sha256(text.encode()).hexdigest(), metadata.version("jsonschema")))
        message = contentcache.kept("schema-document", key, meta_problem)
        if message is not None:
            raise SchemaError(message)
    except FileNotFoundError:
        raise SchemaFileError(f"no schema {_display(path)}: describe the experiment's data there (see "
                              f"src/kernelbook/schema.py)") from None
    except (OSError, ValueError) as e:
        raise SchemaFileError(f"{_display(path)}: not readable JSON ({e})") from e
    except SchemaError as e:
        raise SchemaFileError(f"{_display(path)}: not a valid JSON Schema ({e.message})") from e
    return schema


@cache
def _registry() -> Any:
    from referencing import Registry, Resource

    return Registry().with_resources((p.name, Resource.from_contents(_load(p))) for p in (RECORD, COMMON))


_BASE = "json-schema:///"  # where jsonschema-rs resolves a relative $ref ("common.json#/$defs/...") from


def _fast(schema: dict, common: dict) -> Any:
    """The same schema compiled by jsonschema-rs (in Rust, about a hundred times faster), which decides whether a
    record is valid; None where it is not installed (the GPU image), and jsonschema decides alone. jsonschema always
    writes the message of a record that is not."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    registry = jsonschema_rs.Registry([(_BASE + RECORD.name, _load(RECORD)), (_BASE + COMMON.name, common)])
    return jsonschema_rs.validator_for(schema, registry=registry, base_uri=_BASE + "schema.json")


@cache
def _validator(path: Path, part: str | None) -> tuple[Any, Any]:
    """Validators (jsonschema's, jsonschema-rs's or None) for the schema in `path`, or for its $defs/<part>."""
    from jsonschema import Draft202012Validator

    schema = _load(path)
    if part is not None:
        if part not in schema.get("$defs", {}):
            raise SchemaFileError(f"{_display(path)} has no $defs/{part}: describe the {part} figures there")
        schema = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "$ref": f"#/$defs/{part}"}
    return Draft202012Validator(schema, registry=_registry()), _fast(schema, _load(COMMON))


def ready(name: str) -> None:
    """Raise now what checking a run of experiment `name` would raise once it has been measured: ImportError where
    jsonschema is not installed, SchemaFileError where its schema is missing or invalid."""
    _validator(path_of(name), None)


def _display(path: Path) -> str:
    from kernelbook import paths

    return paths.display(path)


def json_path(parts: Any) -> str:
    """['data', 'rows', 3, 'us'] -> '$.data.rows[3].us'; a key that is not a name goes in brackets."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _KEY.fullmatch(p):
            out += f".{p}"
        else:
            out += f"[{json.dumps(p)}]"
    return out


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _expected(types: Any) -> str:
    types = [types] if isinstance(types, str) else list(types)
    return " or ".join(_TYPES.get(t, t) for t in types)


def _describe(error: Any, prefix: tuple) -> str:
    where = (*prefix, *error.absolute_path)
    v, value = error.validator, error.instance
    if v == "required":
        missing = [k for k in error.validator_value if isinstance(value, dict) and k not in value]
        return f"{json_path((*where, missing[0]))} is missing" if missing else f"{json_path(where)}: {error.message}"
    if v == "type":
        return f"{json_path(where)} is {_shown(value)}, expected {_expected(error.validator_value)}"
    if v == "minimum":
        return f"{json_path(where)} is {_shown(value)}, expected a number >= {error.validator_value}"
    if v in ("const", "enum"):
        allowed = [error.validator_value] if v == "const" else error.validator_value
        return f"{json_path(where)} is {_shown(value)}, expected {' or '.join(map(_shown, allowed))}"
    return f"{json_path(where)}: {error.message}"


def _first(validators: tuple[Any, Any], instance: Any, prefix: tuple, source: Path | str) -> str | None:
    from jsonschema.exceptions import best_match

    validator, fast = validators
    if fast is not None and fast.is_valid(instance):
        return None
    error = best_match(validator.iter_errors(instance))
    where = f"(schema {_display(source) if isinstance(source, Path) else source})"
    if error is not None:
        return f"{_describe(error, prefix)} {where}"
    if fast is not None:  # the two disagree: jsonschema-rs's own words
        error = next(iter(fast.iter_errors(instance)))
        return f"{json_path((*prefix, *error.instance_path))}: {error.message} {where}"
    return None


def problem(rec: dict, name: str, stamp: dict | None = None) -> str | None:
    """How the record `rec` of experiment `name` breaks its schemas, as one line; None if it does not. `stamp`
    ({"data": hash, "common": hash}, from history.json) checks the data against the versions a run of older code was
    stored under instead of today's."""
    found = _first(_validator(RECORD, None), rec, (), RECORD)
    if found:
        return found
    path = path_of(name)
    part = "published" if rec.get("kind") == "published" else None
    if stamp is not None and stamp != current_stamp(name):
        return _first(_versioned(stamp["data"], stamp["common"], part), rec.get("data"), ("data",),
                      f"{_display(history_path())}, version {stamp['data']}: the one it was stored under")
    return _first(_validator(path, part), rec.get("data"), ("data",), path)


@cache
def checker() -> str:
    """What decides a verdict besides the record and its schema versions: this module's code, the record schema and
    the versions of jsonschema and jsonschema-rs (a verdict kept on disk is keyed by it,
    kernelbook.contentcache)."""
    try:
        fast = metadata.version("jsonschema-rs")
    except metadata.PackageNotFoundError:
        fast = "none"
    return "|".join((hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16], digest(_load(RECORD)),
                     metadata.version("jsonschema"), fast))


def names() -> list[str]:
    """The experiments that have a schema file."""
    return sorted(p.stem for p in SCHEMAS.glob("*.json") if p not in (RECORD, COMMON) and p.name != HISTORY_FILE)


# ---- the versions runs of older code were stored under ----------------------------------------------------------

def digest(doc: Any) -> str:
    """A schema version's hash: of the document (its canonical JSON), so a change of layout alone is no new version."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
                          ).hexdigest()[:16]


def current_stamp(name: str) -> dict[str, str]:
    """The versions a run of `name` stored today is checked against: {"data": hash, "common": hash}."""
    return {"data": _digest_of(path_of(name)), "common": _digest_of(COMMON)}


_digests: dict[int, tuple[dict, str]] = {}  # by the loaded document: kept as long as _load keeps it


def _digest_of(path: Path) -> str:
    """digest(_load(path)), hashed once per document _load returns: every result checked asks (3,300 times a build)."""
    doc = _load(path)
    got = _digests.get(id(doc))
    if got is None or got[0] is not doc:
        got = _digests[id(doc)] = (doc, digest(doc))
    return got[1]


def history_path() -> Path:
    return SCHEMAS / HISTORY_FILE


@cache
def _read_history(path: Path, mtime: int) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"versions": {}, "legacy": {}}
    except (OSError, ValueError) as e:
        raise SchemaFileError(f"{_display(path)}: not readable JSON ({e})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("versions"), dict) or not isinstance(
            doc.get("legacy", {}), dict):
        raise SchemaFileError(f"{_display(path)}: not a schema history (versions and legacy expected)")
    return doc


def history() -> dict:
    """history.json: {"versions": {hash: schema}, "legacy": {experiment: {code_hash: stamp}}}."""
    path = history_path()
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        mtime = -1
    return _read_history(path, mtime)


def legacy(name: str, code_hash: Any) -> dict[str, str] | None:
    """The versions a run of `name` stored before runs were stamped was checked against, by its code hash; None if
    history.json does not know that code (the run is then checked against today's)."""
    if not isinstance(code_hash, str):
        return None
    found = history().get("legacy", {}).get(name, {}).get(code_hash)
    return dict(found) if isinstance(found, dict) else None


def version(h: str, which: str) -> dict:
    """The schema document with hash h: today's file if it is that version, else history.json's."""
    current = _load(COMMON) if which == "common" else None
    if current is not None and digest(current) == h:
        return current
    doc = history()["versions"].get(h)
    if doc is None:
        for p in ([COMMON] if which == "common" else sorted(SCHEMAS.glob("*.json"))):
            if p.name != HISTORY_FILE and digest(_load(p)) == h:
                return _load(p)
        raise SchemaFileError(f"no schema version {h} ({which}) in {_display(history_path())}: a run was stored "
                              f"under a version nobody kept; restore it there from git (`python -m kernelbook "
                              f"schemas --keep` at the commit that had it)")
    if digest(doc) != h:
        raise SchemaFileError(f"{_display(history_path())}: version {h} does not hash to its name (edited?); "
                              f"restore the file from git")
    return doc


@cache
def _versioned(data: str, common: str, part: str | None) -> Any:
    """A validator for the data schema version `data` (or its $defs/<part>), its common.json at version `common`."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schema = version(data, "data")
    registry = Registry().with_resources((name, Resource.from_contents(doc)) for name, doc in (
        (RECORD.name, _load(RECORD)), (COMMON.name, version(common, "common"))))
    if part is not None:
        if part not in schema.get("$defs", {}):
            raise SchemaFileError(f"schema version {data} has no $defs/{part}")
        schema = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "$ref": f"#/$defs/{part}"}
    return Draft202012Validator(schema, registry=registry), _fast(schema, version(common, "common"))


def missing_versions() -> list[str]:
    """Today's schema versions that history.json does not keep yet (`python -m kernelbook schemas --keep`)."""
    kept = history()["versions"]
    out = []
    for p in [COMMON, *(path_of(n) for n in names())]:
        if digest(_load(p)) not in kept:
            out.append(f"{_display(p)} (version {digest(_load(p))})")
    return out


def keep() -> list[str]:
    """Add today's versions of every data schema and of common.json to history.json; returns what was added."""
    path = history_path()
    doc = dict(history())
    versions = dict(doc.get("versions", {}))
    added = []
    for p in [COMMON, *(path_of(n) for n in names())]:
        h = digest(_load(p))
        if h not in versions:
            versions[h] = _load(p)
            added.append(f"{_display(p)} (version {h})")
    if added:
        doc["versions"] = versions
        doc.setdefault("legacy", {})
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return added

