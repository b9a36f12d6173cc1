"""`tabpilot extension`: where the extension is, for Load unpacked, or a copy of it elsewhere.

The folder inside an installed tabpilot moves or vanishes when tabpilot is upgraded or removed,
and Chrome then drops an unpacked extension loaded from it; a copy in a folder of the person's
choosing stays. Its id stays too: the manifest's ``key`` fixes it, wherever the folder is.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from tabpilot.cli.tool_commands import CliError
from tabpilot.errors import TabpilotError
from tabpilot.extension_files import extension_dir, extension_id, read_manifest

#: Never copied out: it would turn a person's Chrome into a managed one, with the switch on.
_PRIVATE = ("managed.json",)
_LOAD_HINT = (
    "In chrome://extensions, turn on Developer mode, click Load unpacked and choose that folder."
)


def cmd_extension(args: argparse.Namespace) -> int:
    """Print the extension's folder, or copy it to ``--copy-to``."""
    try:
        source = extension_dir()
    except TabpilotError as error:
        raise CliError(error.message) from None
    if args.copy_to is None:
        print(source)
        return 0
    print(copy_extension(source, Path(args.copy_to)))
    return 0


def copy_extension(source: Path, target: Path) -> str:
    """Copy the extension in ``source`` to ``target``: a new or empty folder, or one that holds a
    copy of tabpilot's extension (same key), which it replaces. Returns what it did, in words."""
    target = target.expanduser().resolve()
    source = source.resolve()
    if target == source or target.is_relative_to(source) or source.is_relative_to(target):
        raise CliError(
            f"{target} is, holds or lies inside {source}, the folder tabpilot runs the extension "
            "from. Nothing was copied: choose a folder elsewhere."
        )
    manifest = read_manifest(source) or {}
    key = manifest.get("key")
    version = manifest.get("version")
    ours = f"{version} (id {extension_id(key)})" if key else str(version)
    if target.exists() and not target.is_dir():
        raise CliError(f"{target} is a file, not a folder. Nothing was copied.")
    replacing = target.is_dir() and any(target.iterdir())
    previous = read_manifest(target) if replacing else None
    if replacing and (previous is None or not key or previous.get("key") != key):
        raise CliError(
            f"{target} is not empty and holds no copy of tabpilot's extension. Nothing was "
            "copied: choose a new or empty folder."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    # Copied beside the target first, then swapped in: a copy cut short never leaves the target
    # half old and half new.
    staging = target.with_name(f".{target.name}.tabpilot-new")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(source, staging, ignore=shutil.ignore_patterns(*_PRIVATE))
    if target.is_dir():
        old = target.with_name(f".{target.name}.tabpilot-old")
        shutil.rmtree(old, ignore_errors=True)
        target.rename(old)
        staging.rename(target)
        shutil.rmtree(old)
    else:
        staging.rename(target)
    if previous is not None:
        return (
            f"Replaced tabpilot's extension {previous.get('version')} in {target} with {ours}. "
            "If Chrome has it loaded, click its reload arrow in chrome://extensions."
        )
    return f"Copied tabpilot's extension {ours} to {target}. {_LOAD_HINT}"
