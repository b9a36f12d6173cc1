"""The wheel carries the extension: `build_py` copies the checkout's `extension/` to
`tabpilot/extension/` in the build, so `extension/` at the root stays its one source.

An editable install copies nothing: `tabpilot.extension_files` then finds `extension/` beside
`server/` in the checkout. Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
EXTENSION = ROOT / "extension"


class BuildWithExtension(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not (EXTENSION / "manifest.json").is_file():
            raise SystemExit(f"tabpilot: {EXTENSION} has no manifest.json; build from a checkout")
        target = Path(self.build_lib) / "tabpilot" / "extension"
        # A build folder left from an earlier build may hold files the extension has dropped since.
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(EXTENSION, target)


setup(cmdclass={"build_py": BuildWithExtension})
