"""Where the extension's files are: the copy an installed tabpilot carries, or a checkout's own.

A wheel holds the extension at ``tabpilot/extension/`` (setup.py copies it there at build time);
a checkout, and an editable install of it, keeps it in ``extension/`` beside ``server/``, its one
source. TABPILOT_EXTENSION_DIR overrides both.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tabpilot.errors import BrowserError

#: The setting that points tabpilot at another extension folder.
EXTENSION_DIR_ENV = "TABPILOT_EXTENSION_DIR"
MANIFEST = "manifest.json"

_PACKAGE = Path(__file__).resolve().parent
#: Where a wheel puts the extension: inside the package.
INSTALLED_DIR = _PACKAGE / "extension"
#: Where a checkout keeps it: ``extension/`` at the root, beside ``server/tabpilot/``.
CHECKOUT_DIR = _PACKAGE.parents[1] / "extension"


def extension_dir() -> Path:
    """The unpacked extension's folder, or a BrowserError that says how to get one."""
    override = os.environ.get(EXTENSION_DIR_ENV)
    if override:
        folder = Path(override).expanduser()
        if not (folder / MANIFEST).is_file():
            raise BrowserError(
                f"{EXTENSION_DIR_ENV}={override} has no {MANIFEST}. Point it at the folder that "
                f"holds the extension's {MANIFEST}, or unset it to use the one tabpilot ships."
            )
        return folder
    for folder in (INSTALLED_DIR, CHECKOUT_DIR):
        if (folder / MANIFEST).is_file():
            return folder
    raise BrowserError(
        f"The tabpilot extension is missing: neither {INSTALLED_DIR} (an installed tabpilot) nor "
        f"{CHECKOUT_DIR} (a checkout) holds its {MANIFEST}. Reinstall tabpilot from its wheel "
        "(`pip install --force-reinstall tabpilot`, or `pip install .` in a checkout), or point "
        f"{EXTENSION_DIR_ENV} at an extension folder."
    )


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The extension manifest in ``folder``, or None where there is no readable one."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def extension_id(key: str) -> str:
    """The id Chrome gives an extension whose manifest holds ``key`` (its public key, base64 DER):
    the first 32 hex digits of the key's SHA-256, each written as a letter, 0-f as a-p."""
    digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(digit, 16)) for digit in digest)
