// Cookies between chrome.cookies and Playwright's storageState format, for the service worker
// (browser_context_save_storage, storage_state on create). The daemon's
// server/tabpilot/storage_state.py validates the files and converts the same way; both are checked
// against tests/fixtures/storage_state_cases.json. The mapping choices are documented there:
// - sameSite "unspecified" reads as "Lax" (what Chrome enforces for a cookie without SameSite) and
//   is written back as an explicit "lax";
// - a domain with a leading dot is a domain cookie, one without is host-only, and
//   chrome.cookies.set gets no `domain` for a host-only cookie (any domain makes a domain cookie);
// - a partitioned cookie's partitionKey.topLevelSite is Playwright's `partitionKey`, its
//   hasCrossSiteAncestor Playwright's `_crHasCrossSiteAncestor` (true when absent);
// - storeId is never saved: the caller names the store (context) a state loads into.
// The cookies given to toChromeSetDetails are validated by the daemon first (Playwright's rules and
// the cookies Chrome refuses), so this module only converts.

const FROM_CHROME_SAME_SITE = Object.freeze({
  no_restriction: "None",
  lax: "Lax",
  strict: "Strict",
  unspecified: "Lax",
});
const TO_CHROME_SAME_SITE = Object.freeze({ None: "no_restriction", Lax: "lax", Strict: "strict" });

const hostOnly = (cookie) => !cookie.domain.startsWith(".");
const stripDots = (domain) => domain.replace(/^\.+/, "");

/** A chrome.cookies.Cookie (from chrome.cookies.getAll) as a Playwright storageState cookie. */
export function fromChromeCookie(c) {
  const domain = c.hostOnly ? stripDots(c.domain) : "." + stripDots(c.domain);
  const session = Boolean(c.session) || c.expirationDate === undefined || c.expirationDate === null;
  const out = {
    name: c.name,
    value: c.value,
    domain,
    path: c.path || "/",
    expires: session ? -1 : c.expirationDate,
    httpOnly: Boolean(c.httpOnly),
    secure: Boolean(c.secure),
    sameSite: FROM_CHROME_SAME_SITE[c.sameSite || "unspecified"] || "Lax",
  };
  const key = c.partitionKey;
  if (key && key.topLevelSite) {
    out.partitionKey = key.topLevelSite;
    if (key.hasCrossSiteAncestor !== undefined) out._crHasCrossSiteAncestor = key.hasCrossSiteAncestor;
  }
  return out;
}

// Chrome's shape for "absent": a session cookie has no expirationDate, an unpartitioned one no
// partitionKey. hasCrossSiteAncestor defaults to true, as Playwright's addCookies does.
function optionalChromeFields(cookie, storeId) {
  const out = {};
  if (cookie.expires !== -1) out.expirationDate = cookie.expires;
  if (storeId !== undefined) out.storeId = storeId;
  if (cookie.partitionKey) {
    const cross = cookie._crHasCrossSiteAncestor;
    out.partitionKey = { topLevelSite: cookie.partitionKey, hasCrossSiteAncestor: cross === undefined || cross === null ? true : cross };
  }
  return out;
}

/** A Playwright cookie as the chrome.cookies.Cookie Chrome would list once it is set. */
export function toChromeCookie(cookie, storeId) {
  const out = {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    hostOnly: hostOnly(cookie),
    path: cookie.path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly,
    sameSite: TO_CHROME_SAME_SITE[cookie.sameSite],
    session: cookie.expires === -1,
  };
  return { ...out, ...optionalChromeFields(cookie, storeId) };
}

/**
 * The argument of chrome.cookies.set that recreates a (validated) Playwright cookie. Chrome needs
 * a `url` and checks the cookie against it: https for a secure cookie, the host, the path.
 */
export function toChromeSetDetails(cookie, storeId) {
  const details = {
    url: `${cookie.secure ? "https" : "http"}://${stripDots(cookie.domain)}${cookie.path}`,
    name: cookie.name,
    value: cookie.value,
    path: cookie.path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly,
    sameSite: TO_CHROME_SAME_SITE[cookie.sameSite],
  };
  if (!hostOnly(cookie)) details.domain = cookie.domain;
  return { ...details, ...optionalChromeFields(cookie, storeId) };
}
