"""browser_emulate: make a tab look like a phone, a slow network, another place or time
(extension/worker/tools/emulate.js). Listed in MCP under the capability ``emulation``.

Emulation belongs to the tab: it lasts across the tab's navigations, ends when the tab closes, and
``reset`` undoes it. The managed browser emulates through chrome.debugger; a person's Chrome
resizes the window for a viewport without it, and needs the debugger switch for the rest. The
device table is here, so that the extension is sent plain settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from tabpilot.errors import UnknownDevice
from tabpilot.tools.fields import TAB_ID_DESCRIPTION, Params, result_of
from tabpilot.tools.tool import ClientFace, CliFace, McpFace, Tool, describe, on_bridge

if TYPE_CHECKING:
    from tabpilot.browsers.bridge import Bridge
    from tabpilot.protocol import ResultFrame

#: browser_emulate is a few DevTools commands, or a window resize and its settling.
EMULATE_TIMEOUT_S = 10.0

_IOS = "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.6 Mobile/15E148 Safari/604.1"
_CHROME = "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/154.0.8037.0"

#: Three phones and two tablets, portrait, with the metrics and user agents of Playwright's
#: deviceDescriptorsSource.json.
DEVICES: dict[str, dict[str, Any]] = {
    "iPhone 15": {
        "width": 393,
        "height": 659,
        "device_scale_factor": 3,
        "user_agent": f"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) {_IOS}",
    },
    "Pixel 7": {
        "width": 412,
        "height": 839,
        "device_scale_factor": 2.625,
        "user_agent": f"Mozilla/5.0 (Linux; Android 14; Pixel 7) {_CHROME} Mobile Safari/537.36",
    },
    "Galaxy S9+": {
        "width": 320,
        "height": 658,
        "device_scale_factor": 4.5,
        "user_agent": "Mozilla/5.0 (Linux; Android 8.0.0; SM-G965U Build/R16NW) "
        f"{_CHROME} Mobile Safari/537.36",
    },
    "iPad Pro 11": {
        "width": 834,
        "height": 1194,
        "device_scale_factor": 2,
        "user_agent": f"Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) {_IOS}",
    },
    "Galaxy Tab S4": {
        "width": 712,
        "height": 1138,
        "device_scale_factor": 2.25,
        "user_agent": f"Mozilla/5.0 (Linux; Android 8.1.0; SM-T837A) {_CHROME} Safari/537.36",
    },
}

#: Chrome DevTools' presets, in kbit/s and ms.
NETWORK_PRESETS = {
    "slow 3g": {"latency_ms": 2000, "download_kbps": 400, "upload_kbps": 400},
    "fast 3g": {"latency_ms": 563, "download_kbps": 1440, "upload_kbps": 675},
}

_CUSTOM_NETWORK = ("latency_ms", "download_kbps", "upload_kbps")


class EmulateParams(Params):
    """Emulation settings for a tab; a call changes only what it names."""

    example: ClassVar[str] = '{"device": "iPhone 15", "color_scheme": "dark"}'

    device: str | None = Field(default=None, max_length=64, description=", ".join(DEVICES))
    width: int | None = Field(default=None, ge=200, le=4000, description="Viewport CSS px.")
    height: int | None = Field(default=None, ge=200, le=4000)
    device_scale_factor: float | None = Field(default=None, ge=0.5, le=5)
    mobile: bool | None = None
    touch: bool | None = None
    user_agent: str | None = Field(default=None, min_length=1, max_length=512)
    locale: str | None = Field(
        default=None, pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$", description="e.g. de-DE"
    )
    timezone: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_+\-/]+$",
        description="IANA, e.g. Asia/Tokyo",
    )
    latitude: float | None = Field(default=None, ge=-90, le=90)
    longitude: float | None = Field(default=None, ge=-180, le=180)
    accuracy: float | None = Field(default=None, ge=0, le=100_000, description="m")
    color_scheme: Literal["light", "dark"] | None = None
    reduced_motion: bool | None = None
    network: Literal["online", "offline", "slow 3g", "fast 3g"] | None = None
    latency_ms: int | None = Field(default=None, ge=0, le=60_000)
    download_kbps: int | None = Field(default=None, ge=1, le=10_000_000)
    upload_kbps: int | None = Field(default=None, ge=1, le=10_000_000)
    cpu_rate: float | None = Field(default=None, ge=1, le=20, description="Slowdown; 1: none.")
    reset: bool = Field(default=False, description="Undo all first.")
    tab_id: int | None = Field(default=None, description=TAB_ID_DESCRIPTION)

    @model_validator(mode="after")
    def _consistent(self) -> EmulateParams:
        if (self.width is None) != (self.height is None):
            raise ValueError("`width` and `height` go together")
        if (self.latitude is None) != (self.longitude is None):
            raise ValueError("`latitude` and `longitude` go together")
        if self.accuracy is not None and self.latitude is None:
            raise ValueError("`accuracy` needs `latitude` and `longitude`")
        custom = [name for name in _CUSTOM_NETWORK if getattr(self, name) is not None]
        if self.network is not None and custom:
            raise ValueError(
                f"`network: {self.network}` contradicts `{custom[0]}`: send a preset, or "
                "latency_ms/download_kbps/upload_kbps for a custom throttle"
            )
        return self


def settings_sent(params: EmulateParams) -> dict[str, Any]:
    """The params as the extension takes them: a device spelled out into its metrics, which the
    call's own fields override, and a network preset into its numbers. Raises UnknownDevice."""
    sent = params.model_dump()
    if params.network in NETWORK_PRESETS:
        sent.update(NETWORK_PRESETS[params.network])
    if params.device is not None:
        device = next((d for d in DEVICES if d.lower() == params.device.strip().lower()), None)
        if device is None:
            raise UnknownDevice(
                f"Unknown device {params.device!r}; the devices are {', '.join(DEVICES)}. "
                "Or set width, height, device_scale_factor, mobile, touch and user_agent."
            )
        sent["device"] = device
        metrics = {**DEVICES[device], "mobile": True, "touch": True}
        for name, value in metrics.items():
            if sent.get(name) is None:
                sent[name] = value
    return sent


async def _emulate(bridge: Bridge, params: Any, request_id: str) -> ResultFrame:
    sent = settings_sent(params)
    return await bridge.call("browser_emulate", sent, request_id, EMULATE_TIMEOUT_S)


def _describe(settings: dict[str, Any]) -> list[str]:
    parts = []
    if settings.get("device"):
        parts.append(str(settings["device"]))
    if settings.get("width") is not None:
        parts.append(f"viewport {settings['width']}x{settings['height']}")
    if settings.get("device_scale_factor") is not None:
        parts.append(f"scale {settings['device_scale_factor']}")
    for flag in ("mobile", "touch"):
        if settings.get(flag) is not None:
            parts.append(flag if settings[flag] else f"no {flag}")
    if settings.get("user_agent"):
        parts.append(f"user agent {settings['user_agent']!r}")
    for name in ("locale", "timezone"):
        if settings.get(name):
            parts.append(f"{name} {settings[name]}")
    if settings.get("latitude") is not None:
        parts.append(f"geolocation {settings['latitude']},{settings['longitude']}")
    if settings.get("color_scheme"):
        parts.append(f"{settings['color_scheme']} color scheme")
    if settings.get("reduced_motion") is not None:
        parts.append("reduced motion" if settings["reduced_motion"] else "motion not reduced")
    network = settings.get("network")
    if network in ("offline", "slow 3g", "fast 3g") or settings.get("latency_ms") is not None:
        if network == "offline":
            parts.append("offline")
        else:
            label = f"{network} " if network in NETWORK_PRESETS else ""
            parts.append(
                f"network {label}({settings.get('latency_ms', 0)} ms, "
                f"{settings.get('download_kbps') or '-'}/{settings.get('upload_kbps') or '-'} kbps)"
            )
    if settings.get("cpu_rate") not in (None, 1):
        parts.append(f"CPU {settings['cpu_rate']}x slower")
    return parts


def emulate_text(envelope: dict[str, Any], params: Any = None) -> str:
    """browser_emulate: what is in force now in the tab, by which route, and any note."""
    done = result_of(envelope)
    tab = (envelope.get("tab") or {}).get("id", "?")
    parts = _describe(done.get("in_force") or {})
    route = {"debugger": "through the debugger", "window": "by resizing the window"}.get(
        str(done.get("route")), ""
    )
    head = f"Tab {tab} emulates " + "; ".join(parts) if parts else f"Tab {tab} emulates nothing"
    text = head + (f" ({route})" if route and parts else "") + "."
    for note in done.get("notes") or []:
        text += f"\n{note}"
    return text


EMULATE = Tool(
    name="browser_emulate",
    params=EmulateParams,
    title="Emulate a device, place, network or CPU in a tab",
    description=describe(
        """
        Emulate in a tab: a device or viewport, user agent, locale, timezone, geolocation,
        color scheme, reduced motion, network, CPU. A call changes only what it names; reset
        undoes all. Answers what is in force. E.g. {"device": "Pixel 7", "network": "slow 3g"}
        """
    ),
    timeout_s=lambda params: EMULATE_TIMEOUT_S,
    text=emulate_text,
    read_only=False,
    client=ClientFace(
        "emulate",
        doc="Emulate in a tab; ``{route, in_force, notes}``: what is in force now.",
    ),
    cli=CliFace("emulate"),
    handle=on_bridge(_emulate),
    mcp=McpFace(cap="emulation"),
)

TOOLS = (EMULATE,)
