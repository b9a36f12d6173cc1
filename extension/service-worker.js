// tabpilot's background service worker: a WebSocket client of the local daemon that runs the
// daemon's commands in tabs while the human keeps AI Web Pilot on. The logic lives in
// background/ (app.js wires it), built from injected globals so node --test can load it too.
import { createBackground } from "./background/app.js";

createBackground({
  chrome,
  WebSocket,
  fetch: (...args) => fetch(...args),
  timers: {
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (id) => clearTimeout(id),
    setInterval: (fn, ms) => setInterval(fn, ms),
    clearInterval: (id) => clearInterval(id),
  },
  userAgent: navigator.userAgent,
});
