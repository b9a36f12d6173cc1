// The WebSocket client of the daemon (protocol.md §1): connect, reconnect with a capped backoff,
// keepalive, and the close codes the popup explains. It knows frames only as JSON objects; what they
// mean is the caller's business (onOpen, onFrame).

export const BACKOFF_START_MS = 100;
export const BACKOFF_MAX_MS = 2000;
// Since Chrome 116 each WebSocket message resets the worker's 30 s idle timer, so a frame every
// 20 s keeps the worker alive while the daemon is there
// (https://developer.chrome.com/docs/extensions/how-to/web-platform/websockets).
export const KEEPALIVE_MS = 20_000;

const CLOSE_REASONS = {
  4001: "protocol mismatch: this extension and the daemon speak different protocol versions; update one of them",
  4002: "busy: another browser's tabpilot extension is connected to this daemon; this one connects when it leaves",
  4003: "the daemon expected a hello first",
  4004: "unauthorized: this daemon needs a token; enter the one it was started with in this popup",
  4005:
    "dropped: an agent closed this browser's context on the daemon; it is listed again when this extension " +
    "reconnects",
  4006: "name taken: another browser holds this context name on the daemon; choose another name in this popup",
};

export function createConnection({ WebSocket, timers, onOpen, onFrame, onClose = () => {} }) {
  let port = null;
  let socket = null;
  let isOpen = false;
  let retryTimer = null;
  let keepaliveTimer = null;
  let delay = BACKOFF_START_MS;
  let lastError = null;

  function open() {
    retryTimer = null;
    let ws;
    try {
      ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    } catch (err) {
      lastError = String(err?.message ?? err);
      scheduleRetry();
      return;
    }
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      isOpen = true;
      keepaliveTimer = timers.setInterval(() => sendOn(ws, { type: "keepalive" }), KEEPALIVE_MS);
      onOpen((frame) => sendOn(ws, frame));
    };
    ws.onmessage = (event) => {
      if (socket !== ws) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        console.warn("tabpilot: ignoring a frame that is not JSON", event.data);
        return;
      }
      // Answers go back on the socket the command came on: a command is never re-sent on a
      // later connection, so a result has no meaning on one.
      onFrame(frame, (reply) => sendOn(ws, reply));
    };
    // A failed connect fires error then close; the error event carries no detail (WHATWG), so
    // all the work is in onclose.
    ws.onerror = () => {};
    ws.onclose = (event) => closed(ws, event);
  }

  // Safe to call twice: only the first call for the current socket does anything.
  function closed(ws, event) {
    if (socket !== ws) return;
    const wasOpen = isOpen;
    socket = null;
    isOpen = false;
    timers.clearInterval(keepaliveTimer);
    keepaliveTimer = null;
    if (CLOSE_REASONS[event?.code]) {
      lastError = CLOSE_REASONS[event.code];
      // A mismatch, another browser holding the daemon or the context's name, or a context just
      // closed will not go away in 100 ms: retry at the slow end.
      if (event.code !== 4003) delay = BACKOFF_MAX_MS;
    } else {
      lastError = wasOpen ? "the daemon closed the connection" : "daemon not reachable";
    }
    onClose();
    scheduleRetry();
  }

  function scheduleRetry() {
    if (retryTimer !== null || port === null) return;
    retryTimer = timers.setTimeout(open, delay);
    delay = Math.min(delay * 2, BACKOFF_MAX_MS);
  }

  function sendOn(ws, frame) {
    if (ws !== socket || !isOpen) {
      console.warn("tabpilot: connection gone, dropping frame", frame?.type, frame?.id ?? "");
      return false;
    }
    ws.send(JSON.stringify(frame));
    return true;
  }

  // Leave the current daemon without scheduling a retry (port is null while this runs).
  function drop() {
    timers.clearTimeout(retryTimer);
    retryTimer = null;
    const ws = socket;
    if (ws) {
      closed(ws, { code: 1000 });
      ws.close(1000, "port changed");
    }
  }

  function restart(newPort) {
    port = null;
    drop();
    port = newPort;
    delay = BACKOFF_START_MS;
    lastError = null;
    open();
  }

  return {
    start(newPort) {
      port = newPort;
      if (!socket && retryTimer === null) open();
    },
    // The daemon port changed in the popup: leave the old daemon and start afresh on the new one.
    setPort(newPort) {
      if (newPort !== port) restart(newPort);
    },
    // The token changed in the popup: say hello afresh with it.
    reconnect() {
      if (port !== null) restart(port);
    },
    // Called by the alarm: if Chrome stopped the worker's timers, connect now.
    ensureConnected() {
      if (port === null || socket) return;
      timers.clearTimeout(retryTimer);
      open();
    },
    // The daemon said hello: the link works, so the next failure starts the backoff afresh.
    healthy() {
      delay = BACKOFF_START_MS;
      lastError = null;
    },
    send: (frame) => (socket ? sendOn(socket, frame) : false),
    status: () => ({ connected: isOpen, port, last_error: lastError }),
    nextDelay: () => delay,
  };
}
