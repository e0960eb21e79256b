"""Constants read from a module's text without running it.

A page needs a few numbers that live beside the code that measured them: the model's fields (decode/model.py), the
warm-up steps (decode/rounds.py), the sizes the allocator demos time (chapters/allocator/demos.py). Those modules
import torch, which costs a site build 2 s per process and is used for nothing else there. The results the page shows
were measured by that very text (the store checks every run's source hashes), so the text is what to read.

A value is a literal, or arithmetic on literals and on names the module assigns at its top level or imports from
another module (`from kernelbook.x import KiB`, read the same way). Anything else is refused, naming the module.
tests/test_source.py holds every value a page reads this way to the imported one.
"""

from __future__ import annotations

import ast
import importlib.util
import operator
from functools import cache
from typing import Any

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


class NotConstant(ValueError):
    pass


def constants(module: str, *names: str) -> list[Any]:
    """The values `module` gives `names` at its top level."""
    found = _assigned(module)
    out = []
    for n in names:
        if n not in found:
            raise NotConstant(f"{module} gives {n} no value that can be read without running it")
        try:
            out.append(_value(module, found[n], found))
        except NotConstant as e:
            raise NotConstant(f"{module}.{n}: {e}") from None
    return out


@cache
def _assigned(module: str) -> dict[str, ast.AST | tuple[str, str]]:
    """name -> the expression assigned to it, or (module, name) for an import; the last top-level binding wins."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        raise NotConstant(f"no module {module}")
    with open(spec.origin, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), spec.origin)
    out: dict[str, ast.AST | tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
              and isinstance(node.value, ast.Tuple) and len(node.targets[0].elts) == len(node.value.elts)):
            for t, v in zip(node.targets[0].elts, node.value.elts, strict=True):  # KiB, MiB = 1 << 10, 1 << 20
                if isinstance(t, ast.Name):
                    out[t.id] = v
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out[node.target.id] = node.value
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                out[alias.asname or alias.name] = (node.module, alias.name)
    return out


def _value(module: str, node: ast.AST | tuple[str, str], scope: dict[str, Any]) -> Any:
    if isinstance(node, tuple):
        return constants(*node)[0]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_value(module, e, scope) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else set(items) if isinstance(node, ast.Set) else items
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_value(module, k, scope): _value(module, v, scope) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_value(module, node.left, scope), _value(module, node.right, scope))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(module, node.operand, scope))
    if isinstance(node, ast.Name) and node.id in scope:
        return _value(module, scope[node.id], scope)
    raise NotConstant(f"{ast.unparse(node)} cannot be read without running {module}")
