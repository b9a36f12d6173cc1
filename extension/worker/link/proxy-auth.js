// Proxy authentication for a context the daemon started behind a proxy: Chrome asks
// chrome.webRequest.onAuthRequired, and a proxy's challenge (a 407: details.isProxy) is answered
// with managed.json's "proxy_auth". A site's own challenge (a 401) is never answered here: Chrome
// handles it as it would without tabpilot. Nothing here logs or returns the credentials.
//
// MV3 on Chromium: the listener must be added in the worker's first turn (the answer may wait for
// managed.json); with "asyncBlocking" the answer goes through the callback (a returned Promise is
// ignored and the request stalls), and the manifest needs "webRequestAuthProvider".

// Chrome asks again for the same request while the proxy refuses what it was given: after this
// many answers the request is cancelled, so the navigation fails instead of asking for ever.
export const MAX_ANSWERS_PER_REQUEST = 2;
// Requests still counted; the oldest are forgotten first (a request asks within a second or so).
const REMEMBERED_REQUESTS = 256;

export function createProxyAuth({ chrome, managed }) {
  const answers = new Map(); // requestId -> how many times its proxy challenge was answered

  function answerCount(requestId) {
    const count = (answers.get(requestId) ?? 0) + 1;
    answers.delete(requestId);
    answers.set(requestId, count); // the most recent last
    if (answers.size > REMEMBERED_REQUESTS) answers.delete(answers.keys().next().value);
    return count;
  }

  function onAuthRequired(details, callback) {
    if (details?.isProxy !== true) {
      callback({}); // a site's 401: Chrome's own handling
      return;
    }
    Promise.resolve(managed)
      .then((m) => {
        if (!m?.proxyAuth) return {}; // no credentials: the proxy is not one tabpilot set up
        if (answerCount(details.requestId) > MAX_ANSWERS_PER_REQUEST) return { cancel: true };
        return { authCredentials: { username: m.proxyAuth.username, password: m.proxyAuth.password } };
      })
      .catch(() => ({}))
      .then(callback);
  }

  try {
    chrome.webRequest?.onAuthRequired?.addListener(onAuthRequired, { urls: ["<all_urls>"] }, ["asyncBlocking"]);
  } catch (err) {
    // Without the permission Chrome throws here; the rest of the worker must still start.
    console.warn("tabpilot: cannot answer proxy authentication", String(err?.message ?? err));
  }
  return { onAuthRequired };
}
