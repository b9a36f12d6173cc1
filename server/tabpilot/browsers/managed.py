"""The managed Chromium of `tabpilot serve --browser`.

The daemon launches its own Chromium with a fresh profile and a private copy of the extension. The
copy carries a `managed.json` that names the daemon's port and makes the AI Web Pilot switch start
on: the profile belongs to the daemon, not to a person. A person's own Chrome never has that file,
so there the switch starts off, and nothing the daemon sends over the WebSocket can turn it on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabpilot.config import LOOPBACK_HOST, Settings
from tabpilot.errors import BrowserError, ExtensionNotConnected, TabpilotError
from tabpilot.extension_files import extension_dir
from tabpilot.tools.context_settings import Proxy

logger = logging.getLogger("tabpilot.browsers.managed")

#: Names Debian, Ubuntu, Fedora and Arch give Chromium's binary, in the order tried.
CHROMIUM_NAMES = ("chromium", "chromium-browser")
#: Branded Chrome ignores --load-extension since version 137: it cannot be the managed browser.
BRANDED_CHROME_NAMES = ("google-chrome", "google-chrome-stable", "chrome")

# Without the background-networking flags, Chromium on a closed network floods itself with refused
# connections to Google's services; none of them matters to a browser an agent drives.
CHROMIUM_FLAGS = (
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
    # A desktop viewport of 1280x720 CSS px, as Playwright's default, rather than headless
    # Chromium's 780x437, where many sites lay out for a tablet. Headless keeps 143 px of the
    # window for its (invisible) toolbar.
    "--window-size=1280,863",
)

_STOP_TIMEOUT_S = 5.0


def find_chromium(explicit: str | None = None) -> str:
    """A Chromium binary that honours --load-extension, or a BrowserError saying what to do."""
    if explicit:
        if shutil.which(explicit):
            return str(shutil.which(explicit))
        raise BrowserError(f"TABPILOT_CHROMIUM={explicit} is not an executable file.")
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    branded = next((name for name in BRANDED_CHROME_NAMES if shutil.which(name)), None)
    hint = (
        f" Found {branded}, but branded Google Chrome ignores --load-extension since version 137."
        if branded
        else ""
    )
    raise BrowserError(
        "No Chromium found for the managed browser."
        f"{hint} Install it (Debian/Ubuntu: `sudo apt-get install chromium`) or point "
        "TABPILOT_CHROMIUM at a Chromium binary."
    )


def _die_with_parent() -> None:
    # Linux only: the kernel sends SIGTERM to Chromium when the daemon dies, even by SIGKILL, so no
    # managed browser outlives its daemon.
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


class ManagedBrowser:
    """A Chromium the daemon starts, owns and stops: the managed context ``context``, whose
    extension proves itself to the daemon with ``key`` (both in its managed.json)."""

    def __init__(
        self,
        settings: Settings,
        *,
        context: str = "default",
        key: str | None = None,
        proxy: Proxy | None = None,
    ) -> None:
        self._settings = settings
        self.context = context
        self.key = key or secrets.token_urlsafe(24)
        self.proxy = proxy
        self._process: asyncio.subprocess.Process | None = None
        self._profile: Path | None = None
        self._binary: str | None = None
        self._starting = asyncio.Lock()

    def command(self, binary: str, profile: Path, extension: Path) -> list[str]:
        """The full command line, for a given binary, profile and extension copy."""
        args = [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
        args.append(f"--load-extension={extension}")
        if not self._settings.headed:
            args.append("--headless=new")
        if self.proxy is not None:
            args.append(f"--proxy-server={self.proxy.server}")
            # Chromium sends loopback direct anyway, unless the list says `<-loopback>`: the
            # extension's link to this daemon never goes through the proxy either way.
            bypass = [self.proxy.bypass] if self.proxy.bypass else []
            bypass.append(f"{LOOPBACK_HOST}:{self._settings.port}")
            args.append(f"--proxy-bypass-list={';'.join(bypass)}")
        if os.geteuid() == 0:
            # Chromium refuses to run as root with its sandbox on (containers, CI).
            args.append("--no-sandbox")
        # Not a web page: Chromium would load it while the extension is still being installed,
        # and with the webRequest permission that load may never start. The daemon opens its
        # landing page in this tab once the extension connects (tabpilot.browsers.supervisor).
        args.append("about:blank")
        return args

    @property
    def landing_url(self) -> str:
        """The daemon's landing page, a normal web page for the first tab: scripts cannot run on
        chrome:// or about: pages."""
        return f"{self._settings.base_url}/"

    def _prepare_profile(self) -> tuple[Path, Path]:
        self._settings.state_dir.mkdir(parents=True, exist_ok=True)
        profile = Path(tempfile.mkdtemp(prefix="browser-", dir=self._settings.state_dir))
        extension = profile / "tabpilot-extension"
        shutil.copytree(extension_dir(), extension)
        # "managed": this headless profile has no one to see the debugger's banner, so the
        # extension may use chrome.debugger here without its popup switch.
        managed: dict[str, Any] = {
            "managed": True,
            "pilot_default": True,
            "daemon_port": self._settings.port,
            "context": self.context,
            "context_key": self.key,
        }
        if self._settings.token:
            managed["token"] = self._settings.token
        if self.proxy is not None and self.proxy.username is not None:
            managed["proxy_auth"] = {
                "username": self.proxy.username,
                "password": self.proxy.password or "",
            }
        managed_file = extension / "managed.json"
        # Created private: it holds the context's key, and may hold the token and the proxy's
        # credentials. The profile dir is 0700 (mkdtemp) as well.
        managed_file.touch(mode=0o600)
        managed_file.write_text(json.dumps(managed) + "\n")
        self._set_download_folder(profile)
        return profile, extension

    def download_folder(self) -> Path:
        """Where the context's downloads go: ``<state dir>/downloads/<context>/``."""
        return self._settings.state_dir / "downloads" / self.context

    def _set_download_folder(self, profile: Path) -> None:
        # Chromium reads a new profile's preferences at start: downloads go straight to the
        # context's folder, with no Save As prompt that nobody could answer in headless mode.
        folder = self.download_folder()
        folder.mkdir(parents=True, exist_ok=True)
        prefs = {
            "download": {
                "default_directory": str(folder),
                "prompt_for_download": False,
                "directory_upgrade": True,
            },
            "savefile": {"default_directory": str(folder)},
        }
        (profile / "Default").mkdir(exist_ok=True)
        (profile / "Default" / "Preferences").write_text(json.dumps(prefs))

    async def start(self) -> None:
        """Launch Chromium. Returns once the process runs; the extension then connects by itself."""
        binary = find_chromium(self._settings.chromium_path)
        extension_dir()  # a missing extension is said before any profile is made
        profile, extension = self._prepare_profile()
        log_path = profile / "chromium.log"
        with log_path.open("wb") as log:
            self._process = await asyncio.create_subprocess_exec(
                *self.command(binary, profile, extension),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self._profile, self._binary = profile, binary
        logger.info(
            "managed Chromium of context %s started (pid %s, log %s)",
            self.context,
            self._process.pid,
            log_path,
        )

    @property
    def running(self) -> bool:
        """Whether Chromium runs: started, and not stopped or gone since."""
        return self._process is not None and self._process.returncode is None

    async def exited(self) -> None:
        """Return when the running Chromium exits (at once if none runs)."""
        process = self._process
        if process is not None:
            await process.wait()

    async def ensure_running(self, linked: Callable[[], bool]) -> None:
        """Start Chromium again, with a fresh profile, after a stop or a crash; unless it runs, or
        ``linked()`` says its extension is connected. Raises ExtensionNotConnected if it fails."""
        async with self._starting:  # callers that arrive together start it once
            if self.running or linked():
                return
            logger.info("starting the managed Chromium again")
            await self.stop()  # what a crashed browser left: its other processes, its profile
            try:
                await self.start()
            except Exception as exc:
                await self.stop()
                why = exc.message if isinstance(exc, TabpilotError) else str(exc)
                raise ExtensionNotConnected(
                    f"The managed browser was not running and did not start again: {why}"
                ) from None

    async def stop(self) -> None:
        """Stop Chromium and remove its profile. Safe to call twice."""
        process, self._process = self._process, None
        # Even when Chromium itself is gone (it crashed, or was killed): its renderers and helpers
        # are in its process group, and may still run.
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                await asyncio.wait_for(process.wait(), _STOP_TIMEOUT_S)
            except ProcessLookupError:
                pass
            except TimeoutError:
                os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def info(self) -> dict[str, Any]:
        """What /status reports about the managed browser."""
        process = self._process
        return {
            "managed": True,
            "context": self.context,
            "binary": self._binary,
            "headless": not self._settings.headed,
            "pid": process.pid if process else None,
            "running": self.running,
        }
