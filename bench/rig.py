"""One real daemon and one real Chromium with the real extension, shared by every suite.

Set up the way the end-to-end tests do it (tests/e2e/harness.py): the daemon as its own process,
Chromium through Selenium with the unpacked extension, the popup pointed at the daemon and AI Web
Pilot turned on. Selenium then drives the same browser, so both are measured on the same tabs.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selenium import webdriver
from tests.e2e.harness import (
    EXTENSION_DIR,
    Daemon,
    launch_chromium,
    set_pilot,
    spawn_daemon,
    use_popup,
    wait_for,
)

from bench.clients import LeanClient

#: Tabs opened for the four-tab throughput runs; the first is the one every other suite uses.
TABS = 4


@dataclass
class Rig:
    daemon: Daemon
    driver: webdriver.Chrome
    tab_ids: list[int]
    client: LeanClient
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return self.daemon.port

    @property
    def pid(self) -> int:
        return self.daemon.process.pid


@contextmanager
def rig(
    daemon_args: tuple[str, ...] = (),
    *,
    extension: Path = EXTENSION_DIR,
    env: dict[str, str] | None = None,
) -> Iterator[Rig]:
    """Start the daemon and Chromium, open TABS pages, leave Selenium on the first. ``extension``
    and ``env`` (PYTHONPATH: another tree's daemon) set up another version of tabpilot."""
    profile = Path(tempfile.mkdtemp(prefix="tabpilot-bench-"))
    with spawn_daemon(*daemon_args, env=env) as daemon:
        page = f"{daemon.url}/"
        driver = launch_chromium(profile, page, extension=extension)
        client: LeanClient | None = None
        try:
            use_popup(driver, port=daemon.port)
            wait_for(lambda: daemon.status()["extension"]["connected"], 20, "the extension")
            set_pilot(driver, daemon, True)
            first = driver.current_window_handle
            for _ in range(TABS - 1):
                driver.switch_to.new_window("tab")
                driver.get(page)
            # Back to the first tab: it is then the active tab that a call without tab_id runs in.
            driver.switch_to.window(first)
            driver.execute_cdp_cmd("Page.bringToFront", {})

            def ready_tabs() -> list[int] | None:
                tabs = [t for t in daemon.get("/tabs").json()["result"] if t["url"] == page]
                active = [t["id"] for t in tabs if t["active"]]
                others = [t["id"] for t in tabs if not t["active"]]
                return active + others if len(tabs) == TABS and len(active) == 1 else None

            tab_ids: list[int] = wait_for(ready_tabs, 20, f"{TABS} tabs of the landing page")
            client = LeanClient(daemon.port)
            yield Rig(daemon, driver, tab_ids, client)
        finally:
            if client is not None:
                client.close()
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process, in bytes, from /proc (Linux)."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                out[name] = int(value.split()[0]) * 1024
    return out


def reset_peak(pid: int) -> bool:
    """Reset a process's VmHWM to its current RSS (Linux 4.0+); False where not allowed."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def machine(driver: webdriver.Chrome | None = None) -> dict[str, Any]:
    """What the figures were measured on, with the load when the run started."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
    except OSError:
        pass
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "cpu": model or platform.processor(),
        "memory_bytes": memory,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "chromedriver": _version("chromedriver"),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    if driver is not None:
        info["chromium"] = driver.capabilities.get("browserVersion")
    return info


def chromium_version() -> str | None:
    """The version of the Chromium on the PATH, as `chromium --version` prints it."""
    full = _version("chromium")
    match = re.search(r"\d+(?:\.\d+)+", full or "")
    return match.group(0) if match else full


def _version(binary: str) -> str | None:
    path = shutil.which(binary)
    if path is None:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
