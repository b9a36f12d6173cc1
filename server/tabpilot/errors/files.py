"""The file tools' own errors: a path outside the uploads folder, a missing or too large file, a
ref that takes no file (:mod:`tabpilot.errors` draws the tree)."""

from __future__ import annotations

from tabpilot.errors._base import RequestRefused


class UploadPathOutside(RequestRefused):
    code, status = "upload_path_outside", 403
    meaning = (
        "browser_upload reads files only from the uploads folder (TABPILOT_UPLOAD_DIR); the path, "
        "symlinks resolved, leads outside it."
    )
    default_message = (
        "That path leads outside the uploads folder. Put the file in the uploads folder "
        "(TABPILOT_UPLOAD_DIR) and pass its path relative to it."
    )


class FileNotFound(RequestRefused):
    code, status = "file_not_found", 404
    meaning = "No file at that path in the uploads folder."
    default_message = (
        "No file at that path in the uploads folder. Check the name; paths are relative to "
        "the uploads folder (TABPILOT_UPLOAD_DIR)."
    )


class NotAFileInput(RequestRefused):
    code, status = "not_a_file_input", 409
    meaning = (
        "The ref is not a file input, and clicking it opened no file chooser; the message names "
        "the element."
    )
    default_message = (
        "That element takes no file: it is not a file input and clicking it opened no file "
        "chooser. Take a browser_snapshot and pass the file input's ref, or the button that "
        "opens the chooser."
    )


class FileTooLarge(RequestRefused):
    code, status = "file_too_large", 413
    meaning = (
        "The file (or the call's files together) is larger than TABPILOT_UPLOAD_MAX_BYTES "
        "(50 MB by default)."
    )
    default_message = (
        "The file is larger than browser_upload sends (TABPILOT_UPLOAD_MAX_BYTES). Send a "
        "smaller file, or ask the person to raise the limit."
    )
