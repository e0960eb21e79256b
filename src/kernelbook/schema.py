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
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "schemas"
RECORD, COMMON = HERE / "record.json", HERE / "common.json"
SCHEMAS = HERE  # where <experiment>.json are looked up (a test points it at its own)
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

    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
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


@cache
def _validator(path: Path, part: str | None) -> Any:
    """A validator for the schema in `path`, or for its $defs/<part>."""
    from jsonschema import Draft202012Validator

    schema = _load(path)
    if part is not None:
        if part not in schema.get("$defs", {}):
            raise SchemaFileError(f"{_display(path)} has no $defs/{part}: describe the {part} figures there")
        schema = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "$ref": f"#/$defs/{part}"}
    return Draft202012Validator(schema, registry=_registry())


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


def _first(validator: Any, instance: Any, prefix: tuple, source: Path) -> str | None:
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(instance))
    if error is None:
        return None
    return f"{_describe(error, prefix)} (schema {_display(source)})"


def problem(rec: dict, name: str) -> str | None:
    """How the record `rec` of experiment `name` breaks its schemas, as one line; None if it does not."""
    found = _first(_validator(RECORD, None), rec, (), RECORD)
    if found:
        return found
    path = path_of(name)
    part = "published" if rec.get("kind") == "published" else None
    return _first(_validator(path, part), rec.get("data"), ("data",), path)


def names() -> list[str]:
    """The experiments that have a schema file."""
    return sorted(p.stem for p in SCHEMAS.glob("*.json") if p not in (RECORD, COMMON))
