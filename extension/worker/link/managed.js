// managed.json is absent from the repo. `tabpilot serve --browser` writes it into the private copy
// of the extension it loads into its own Chromium, with {"pilot_default": true, "daemon_port": N}
// and, when the daemon has one, its "token": in that profile, which belongs to the daemon, the
// pilot starts on and the port and token are the daemon's.
// A browser the daemon starts as a context also gets the context's "context" name, the
// "context_key" that proves to the daemon the browser is that context, and, when the context's
// proxy needs them, "proxy_auth" {username, password}: only proxy-auth.js uses those, to answer
// the proxy's challenges; they never go into a frame, a log line or the popup.
// A person's Chrome never has the file, so there the switch starts off and the port is 7878.

// A context's name, as the daemon accepts it: 1 to 40 letters, digits, ".", "_" or "-", starting
// with a letter or a digit.
export const CONTEXT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
// A person's Chrome, until its popup names it otherwise.
export const DEFAULT_CONTEXT = "chrome";
export const isContextName = (value) => typeof value === "string" && CONTEXT_NAME_RE.test(value);

const nonEmpty = (value) => (typeof value === "string" && value !== "" ? value : null);

function proxyAuthOf(value) {
  if (typeof value?.username !== "string" || value.username === "" || typeof value.password !== "string") return null;
  return Object.freeze({ username: value.username, password: value.password });
}

export function loadManaged({ chrome, fetch }) {
  return fetch(chrome.runtime.getURL("managed.json"))
    .then((response) => (response.ok ? response.json() : {}))
    .catch(() => ({})) // no file: a normal install
    .then((body) => ({
      pilotDefault: body?.pilot_default === true,
      // The daemon's own headless browser, where no one sees the debugger's banner (debugger.js).
      managed: body?.managed === true,
      daemonPort: Number.isInteger(body?.daemon_port) ? body.daemon_port : null,
      token: nonEmpty(body?.token),
      context: isContextName(body?.context) ? body.context : null,
      contextKey: nonEmpty(body?.context_key),
      proxyAuth: proxyAuthOf(body?.proxy_auth),
    }));
}
