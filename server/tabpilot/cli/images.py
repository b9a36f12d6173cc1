"""Where `tabpilot screenshot` writes the image it got: a file, or standard output."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from tabpilot.errors import InvalidRequest
from tabpilot.tools.screenshot import image_bytes, image_of

#: A file name's ending for each image type.
EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png"}


def save_image(envelope: dict[str, Any], output: str | None) -> str:
    """Write the envelope's image to ``output`` (a default name in the current directory when
    None, stdout for ``-``); the path written."""
    found = image_of(envelope)
    if found is None:
        raise InvalidRequest("The answer carries no image.")
    data = image_bytes(envelope["result"])
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return "-"
    if output is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        output = f"screenshot-{stamp}.{EXTENSIONS.get(found[1], 'img')}"
    Path(output).write_bytes(data)
    return output
