"""The file tools: browser_upload gives a page's file input files from the uploads folder, and
browser_downloads lists what the AI's acts downloaded (docs/files.md).

Upload paths are resolved here, in the daemon, symlinks included, and only files inside the
uploads folder (``Settings.uploads``) are read; their bytes travel to the extension in the command
(base64), which hands them to the page in chunks under Chrome's message limit.
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from tabpilot.errors import FileNotFound, FileTooLarge, InvalidRequest, UploadPathOutside
from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, Ref, plural, result_of
from tabpilot.tools.tool import ClientFace, CliFace, McpFace, Tool, describe, on_bridge

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge
    from tabpilot.config import Settings
    from tabpilot.protocol import ResultFrame

#: Files one call may give at most.
MAX_FILES = 32
#: What the extension may take to hand the files to the page and see the chooser open; the bytes'
#: own way (a second per 10 MB on a slow machine) is added to it.
UPLOAD_TIMEOUT_S = 15.0


class UploadParams(Params):
    """Files from the uploads folder into a file input, or the chooser an element opens."""

    example: ClassVar[str] = '{"ref": "e7", "paths": ["cv.pdf"]}'

    ref: Ref = Field(description="A file input, or what opens a chooser.")
    paths: list[str] = Field(
        min_length=1,
        max_length=MAX_FILES,
        description="Relative to the uploads folder.",
    )
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)


class DownloadsParams(Params):
    """The downloads the AI's acts started, newest first."""

    example: ClassVar[str] = '{"limit": 5}'

    limit: int = Field(default=20, ge=1, le=100, description="At most this many.")


@dataclass(frozen=True)
class UploadFile:
    """One file to send: its real path, and the name, MIME type and size the page sees."""

    path: Path
    name: str
    type: str
    size: int


def upload_folder(settings: Settings) -> Path:
    """The uploads folder, created on first use, symlinks resolved."""
    folder = settings.uploads
    folder.mkdir(parents=True, exist_ok=True)
    return folder.resolve(strict=True)


def resolve_upload(folder: Path, raw: str, max_bytes: int) -> UploadFile:
    """The file ``raw`` names inside ``folder`` (relative to it, or absolute inside it); raises
    UploadPathOutside, FileNotFound, InvalidRequest or FileTooLarge."""
    if not raw or "\x00" in raw:
        raise InvalidRequest(f"{raw!r} is not a path; name a file in the uploads folder {folder}.")
    given = Path(raw)
    path = given if given.is_absolute() else folder / given
    outside = UploadPathOutside(
        f"{raw!r} leads outside the uploads folder {folder}: browser_upload reads only files "
        "inside it (symlinks resolved). Copy the file there and pass its path relative to it."
    )
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        if not Path(os.path.normpath(path)).is_relative_to(folder):
            raise outside from None
        raise FileNotFound(
            f"No file {raw!r} in the uploads folder {folder}. Check the name; paths are relative "
            "to that folder."
        ) from None
    except (OSError, RuntimeError) as error:  # a symlink loop, a permission
        raise InvalidRequest(f"{raw!r} cannot be read: {error}.") from None
    if not real.is_relative_to(folder):
        raise outside
    info = real.stat()
    if stat.S_ISDIR(info.st_mode):
        raise InvalidRequest(f"{raw!r} is a folder; name the files in it one by one.")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidRequest(f"{raw!r} is not a regular file (a pipe or a device, say).")
    if info.st_size > max_bytes:
        raise too_large(f"{raw!r} holds {info.st_size:,} bytes", max_bytes)
    # The type Chrome's own file chooser gives: from the name's extension, else none.
    kind = mimetypes.guess_type(real.name)[0] or ""
    return UploadFile(path=real, name=real.name, type=kind, size=info.st_size)


def too_large(what: str, max_bytes: int) -> FileTooLarge:
    """The refusal of ``what`` past the size cap."""
    return FileTooLarge(
        f"{what}, more than browser_upload sends ({max_bytes:,} bytes, "
        "TABPILOT_UPLOAD_MAX_BYTES). Send a smaller file, or ask the person to raise the limit."
    )


def read_base64(file: UploadFile, max_bytes: int) -> str:
    """The file's bytes in base64, read without following a symlink put in its place since."""
    fd = os.open(file.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise too_large(f"{file.name!r} grew to more than {max_bytes:,} bytes", max_bytes)
    return base64.b64encode(data).decode("ascii")


def upload_files(settings: Settings, paths: list[str]) -> list[dict[str, Any]]:
    """The command's ``files``: each one's name, type, size and bytes (base64)."""
    folder = upload_folder(settings)
    cap = settings.upload_max_bytes
    files = [resolve_upload(folder, raw, cap) for raw in paths]
    total = sum(file.size for file in files)
    if total > cap:
        raise too_large(f"The {len(files)} files hold {total:,} bytes together", cap)
    return [
        {"name": f.name, "type": f.type, "size": f.size, "data": read_base64(f, cap)} for f in files
    ]


async def upload(bridge: Bridge, params: UploadParams, request_id: str) -> ResultFrame:
    """Resolve and read the files here, then send them to the extension with the ref."""
    files = await asyncio.to_thread(upload_files, bridge.settings, params.paths)
    size = sum(file["size"] for file in files)
    command = {"tab_id": params.tab_id, "ref": params.ref, "files": files}
    timeout_s = UPLOAD_TIMEOUT_S + size / 10_000_000 + bridge.settings.timeout_grace_s
    return await bridge.call("browser_upload", command, request_id, timeout_s)


def _size(value: Any) -> str:
    return f"{value:,} bytes" if isinstance(value, int) else "size unknown"


def download_line(item: dict[str, Any]) -> str:
    """One download: its name, size and state, or why it was interrupted, and where it is."""
    name = item.get("name") or "(no name yet)"
    state = str(item.get("state") or "in_progress")
    if state == "interrupted":
        line = f'"{name}" interrupted: {item.get("error") or "unknown reason"}'
    elif state == "complete":
        line = f'"{name}" ({_size(item.get("size"))}) complete'
    else:
        got = item.get("received")
        line = f'"{name}" in progress ({_size(got)} so far)'
    if item.get("path") and state == "complete":
        line += f" at {item['path']}"
    return line


def downloads_note(downloads: list[dict[str, Any]] | None) -> str:
    """What an act's answer adds for the downloads it started."""
    return "".join(f"; downloaded {download_line(d)}" for d in downloads or [])


def upload_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_upload: what the page got, by which route, and the files its accept refuses."""
    result = result_of(envelope)
    text = str(result.get("description") or "Uploaded")
    route = result.get("route")
    if route:
        text += f" (route: {route})"
    unaccepted = result.get("not_accepted") or []
    if unaccepted:
        names = ", ".join(f'"{n}"' for n in unaccepted)
        text += f"; not matching its accept={result.get('accept')!r}: {names}, given anyway"
    return text


def downloads_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_downloads: one line per download, newest first."""
    items = result_of(envelope).get("downloads") or []
    if not items:
        return "No downloads from the AI's acts yet."
    lines = [f"{plural(len(items), 'download')}, newest first:"]
    for item in items:
        origin = f" from {item['origin']}" if item.get("origin") else ""
        lines.append(f"- {download_line(item)}{origin}")
    return "\n".join(lines)


UPLOAD = Tool(
    name="browser_upload",
    params=UploadParams,
    title="Upload files into the page",
    description=describe(
        """
        Give files from the uploads folder to a file input, or to the chooser a button opens.
        E.g. {"ref": "e7", "paths": ["cv.pdf"]} → Uploaded "cv.pdf" (1,024 bytes) to button
        "Resume" (e7)
        """
    ),
    timeout_s=UPLOAD_TIMEOUT_S,
    text=upload_text,
    read_only=False,
    handle=on_bridge(upload),
    client=ClientFace(
        "upload",
        doc=(
            "Files from the uploads folder into a file input: "
            "``{description, route, files, not_accepted}``."
        ),
        positional=("ref", "paths"),
    ),
    cli=CliFace("upload", positional=("ref", "paths")),
    mcp=McpFace(cap="files"),
)


DOWNLOADS = Tool(
    name="browser_downloads",
    params=DownloadsParams,
    title="List the downloads the AI started",
    description=describe(
        """
        The downloads the AI's acts started, newest first: name, size, state or why it failed,
        and the file's path.
        """
    ),
    timeout_s=5.0,
    text=downloads_text,
    read_only=True,
    client=ClientFace(
        "downloads",
        doc=(
            "The downloads the AI's acts started, newest first: ``{downloads: [{name, origin, "
            "size, state, error, path}]}``."
        ),
    ),
    cli=CliFace("downloads"),
    mcp=McpFace(cap="files"),
)

TOOLS = (UPLOAD, DOWNLOADS)
