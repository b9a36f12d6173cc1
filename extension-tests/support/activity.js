// The whole background over fake chrome.* APIs and a fake daemon socket, said hello to, as the
// activity tests drive it: commands in from the daemon, questions from the popup.
import { createBackground } from "../../extension/worker/main.js";
import { FakeWebSocket, fakeChrome, realTimers } from "./fake-chrome.js";

export const PAGE = { id: 7, url: "https://example.test/a", title: "Example", active: true, windowId: 1 };
export const POPUP = { url: "chrome-extension://mmgjobhjaeaocmcbdnjglfiobpnpkdpf/popup.html" };

export async function startBackground(options = {}) {
  const { chrome, fetch } = fakeChrome({
    storage: { pilotEnabled: true },
    tabs: [PAGE],
    onSend: () => ({ ok: true, result: "Example", result_type: "string", url: PAGE.url, title: "Example" }),
    ...options,
  });
  const timers = { ...realTimers, setTimeout: (fn, ms) => setTimeout(fn, ms).unref(), setInterval: (fn, ms) => setInterval(fn, ms).unref() };
  const background = createBackground({ chrome, WebSocket: FakeWebSocket, fetch, timers });
  await background.ready;
  const ws = FakeWebSocket.last();
  ws.open();
  ws.receive({ type: "hello", protocol_version: 1, daemon_version: "0.1.0" });
  return { chrome, ws, background };
}

// A runtime message as the popup (or, with another sender, a content script) sends it.
export const ask = (chrome, message, sender = POPUP) =>
  new Promise((resolve) => chrome.runtime.onMessage.emit(message, sender, resolve));
