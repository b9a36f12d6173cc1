// managed.json is absent from the repo. `tabpilot serve --browser` writes it into the private copy
// of the extension it loads into its own Chromium, with {"pilot_default": true, "daemon_port": N}
// and, when the daemon has one, its "token": in that profile, which belongs to the daemon, the
// pilot starts on and the port and token are the daemon's.
// A person's Chrome never has the file, so there the switch starts off and the port is 7878.

export function loadManaged({ chrome, fetch }) {
  return fetch(chrome.runtime.getURL("managed.json"))
    .then((response) => (response.ok ? response.json() : {}))
    .catch(() => ({})) // no file: a normal install
    .then((body) => ({
      pilotDefault: body?.pilot_default === true,
      // The daemon's own headless browser, where no one sees the debugger's banner (debugger.js).
      managed: body?.managed === true,
      daemonPort: Number.isInteger(body?.daemon_port) ? body.daemon_port : null,
      token: typeof body?.token === "string" && body.token !== "" ? body.token : null,
    }));
}
