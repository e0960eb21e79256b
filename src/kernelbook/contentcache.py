"""Values kept on disk under a key that names everything they depend on (the hashes of their inputs), so that they
cannot go stale and every process (builds, tests, the CLI) can use them: a result file's schema verdict
(kernelbook.store, kernelbook.schema). They live in the user's cache folder (`~/.cache/kernelbook/content/`, or under
$XDG_CACHE_HOME), never inside the working tree; KERNELBOOK_CACHE=0 turns them off; deleting the folder is always
safe. The site build's own cache (kernelbook.buildcache) sits beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path


def base() -> Path:
    """The user's cache folder for kernelbook."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kernelbook"


def folder() -> Path:
    """The verdicts keyed by the hashes of their inputs: one folder for every checkout."""
    return base() / "content"


def kept(kind: str, key: str, compute: Callable[[], str | None]) -> str | None:
    """compute(), kept as JSON under a key that names everything the value depends on (the hashes of its inputs), so
    it is used by every process, tests and CLI too; KERNELBOOK_CACHE=0 turns it off."""
    if os.environ.get("KERNELBOOK_CACHE", "1") == "0":
        return compute()
    path = folder() / kind / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(got, dict) and got.get("key") == key and (got["value"] is None or isinstance(got["value"], str)):
            return got["value"]
    except (OSError, ValueError, KeyError):  # absent, torn or foreign: computed again
        pass
    value = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, "value": value}), encoding="utf-8")
        tmp.replace(path)
    except OSError:  # a read-only home: nothing kept
        pass
    return value
