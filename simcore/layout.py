"""Layout of a run folder, shared by the writer (``simcore.results``) and the readers (``analysis``).

Kept free of Numba and pyarrow imports so that readers load in a fraction of a second.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simcore.errors import OutputError

SCHEMA_VERSION = 1
METADATA_KEY = b"scopasim"
MANIFEST = "manifest.json"
TABLES = ("games", "deals")


def part_name(index: int) -> str:
    """File name of chunk ``index``'s part in ``games/`` and ``deals/``."""
    return f"part-{index:05d}.parquet"


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of a run folder, checked for a schema this version can read."""
    manifest_path = Path(path) / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except FileNotFoundError:
        raise OutputError(f"{path} is not a scopasim run folder (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:  # ValueError: bad JSON, or bytes that are not UTF-8
        raise OutputError(f"cannot read {manifest_path}: {exc}") from None
    if not isinstance(manifest, dict):
        raise OutputError(f"cannot read {manifest_path}: not a JSON object")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise OutputError(
            f"{path} was written with results schema {version!r}; this scopasim reads schema {SCHEMA_VERSION}"
        )
    return manifest
