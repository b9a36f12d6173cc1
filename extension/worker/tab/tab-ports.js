// One long-lived port per frame of a tab to its content script (protocol.md §2): the top frame's
// (frameId 0) for most commands, a child frame's for a ref it gave out (ref-frames.js).
// chrome.tabs.sendMessage opens and closes a message channel for every message, which costs about
// as much as the rest of a command together; a port is opened once per page load and then carries
// each request and each answer in one hop.
export const NO_RECEIVER = "Receiving end does not exist";

// What was posted on the port never reached a content script: sending again cannot run it twice.
export class NotDelivered extends Error {}

// `sites` (link/site-rules.js): while any site rule is set, a port opens only to a document whose
// url was checked, named by its documentId, so that a page that navigated meanwhile into a
// ruled-out site gets nothing (Chrome fails the connect, and the next send checks anew); a
// document's host never changes, so the check holds for the port's life. The rules changing drops
// every port, so the next send checks again.
export function createTabPorts(chrome, sites = null) {
  const links = new Map(); // "tabId:frameId" -> {port, pending: Map(seq -> {resolve, reject})}
  let sequence = 0;
  const keyOf = (tabId, frameId) => `${tabId}:${frameId}`;
  sites?.onChange(() => {
    for (const key of [...links.keys()]) {
      const [tabId, frameId] = key.split(":").map(Number);
      forget(tabId, frameId, "the site rules changed");
    }
  });

  function open(tabId, frameId, documentId = undefined) {
    const key = keyOf(tabId, frameId);
    // A documentId names its frame too; Chrome takes the one or the other.
    const port = chrome.tabs.connect(tabId, documentId ? { documentId, name: "tabpilot" } : { frameId, name: "tabpilot" });
    const link = { port, pending: new Map(), reached: false };
    port.onMessage.addListener((reply) => {
      // The content script says so first thing when it takes the port: from then on, whatever
      // was posted may have reached it.
      if (reply?.reached === true) {
        link.reached = true;
        return;
      }
      const waiter = link.pending.get(reply?.seq);
      if (!waiter) return;
      link.pending.delete(reply.seq);
      waiter.resolve(reply.answer);
    });
    // Chrome closes the port when the page goes (navigation, back/forward cache, tab closed). A
    // port that no content script took says "Receiving end does not exist": nothing posted on it
    // was delivered, so the caller may inject the content script and send again. Chrome can say
    // the same of a port the page had taken, as the browser shuts down; such a port, and any
    // other close, may come after the page got a request, and that request is never sent again.
    port.onDisconnect.addListener(() => {
      const why = String(chrome.runtime.lastError?.message ?? "");
      if (links.get(key) === link) links.delete(key);
      const error =
        why.includes(NO_RECEIVER) && !link.reached
          ? new NotDelivered(why)
          : new Error(`The message channel closed before the page answered${why ? ` (${why})` : ""}.`);
      for (const waiter of link.pending.values()) waiter.reject(error);
      link.pending.clear();
    });
    links.set(key, link);
    return link;
  }

  // The content script's answer to `message`; rejects when the port closes first.
  function send(tabId, message, frameId = 0) {
    const key = keyOf(tabId, frameId);
    const link = links.get(key);
    if (!link && sites?.active()) {
      return checkedDocument(sites, chrome, tabId, frameId).then((doc) => post(key, links.get(key) ?? open(tabId, frameId, doc), message));
    }
    return post(key, link ?? open(tabId, frameId), message);
  }

  function post(key, link, message) {
    const seq = ++sequence;
    return new Promise((resolve, reject) => {
      link.pending.set(seq, { resolve, reject });
      try {
        link.port.postMessage({ seq, message });
      } catch (err) {
        // A port Chrome already closed: the disconnect handler has failed or will fail the rest.
        link.pending.delete(seq);
        if (links.get(key) === link) links.delete(key);
        reject(err);
      }
    });
  }

  // Closes the tab's port, so that the next send opens one to whichever content script listens now
  // (a newly injected copy; the one before stopped listening for ports when it retired).
  function forget(tabId, frameId = 0, why = "tabpilot reconnected to the tab") {
    const key = keyOf(tabId, frameId);
    const link = links.get(key);
    if (!link) return;
    links.delete(key);
    try {
      link.port.disconnect();
    } catch {}
    const error = new Error(`The message channel closed: ${why}.`);
    for (const waiter of link.pending.values()) waiter.reject(error);
    link.pending.clear();
  }

  // The site_blocked error for a frame at `url`, or null: for whoever explains why a frame is silent.
  const ruledOut = (url, what) => {
    const found = sites?.active() ? sites.check(url) : null;
    return found ? sites.refusal(found, what) : null;
  };

  return { send, forget, ruledOut };
}

// The documentId of the frame's current document once its url passed the site rules; throws
// site_blocked for a ruled-out one. A frame Chrome does not know is left to the connect to fail.
export async function checkedDocument(sites, chrome, tabId, frameId) {
  const frame = await Promise.resolve(chrome.webNavigation?.getFrame?.({ tabId, frameId })).catch(() => null);
  if (!frame) return undefined;
  const found = sites.check(frame.url);
  if (found) {
    const where = frameId === 0 ? `Tab ${tabId} shows ${found.host || "a file page"}` : `A frame of tab ${tabId} shows ${found.host || "a file page"}`;
    throw sites.refusal(found, where, { id: tabId, url: "", title: "" });
  }
  return frame.documentId ?? undefined;
}
