// The sites the person rules in or out (docs/security.md, "Site rules"), and the one gate every
// command that reaches a tab passes (tab/tab-cache.js, tab/tab-ports.js, tab/tabs.js, commands.js).
//
// Two sets of rules apply together; a url is allowed only if both allow it:
// - the person's, chrome.storage.local "siteRules" {mode: "never" | "only", sites: [...]}, written
//   only by the popup (popup/popup-sites.js). No worker module writes the key, storage.local is
//   closed to content scripts (link/pilot.js), and no daemon frame reaches it: nothing the AI sends
//   can change it (extension-tests/site-rules.test.js holds every command to that).
// - the daemon's, from its hello frame ({never: [...], only: [...] | null}, `tabpilot serve
//   --block-site/--only-site`): they can only add refusals, never lift the person's.
//
// The syntax, kept to hosts on purpose: a document's host cannot change while it lives (pushState
// keeps the origin), so a check made when a port opens holds for the port's whole life.
//   bank.example      that host and every subdomain of it (www.bank.example)
//   *.example.com     the subdomains of example.com, not example.com itself
// Any scheme (http, https, and file pages, which have no host) and any port. A pasted url counts
// for its host. Case does not matter; an international name is kept as Chrome writes it (punycode).
import { CommandError } from "./errors.js";

export const SITE_RULES_KEY = "siteRules";
export const SITE_MODES = ["never", "only"];
// Enough for any person's list; a bound keeps a check cheap.
export const MAX_SITES = 200;

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

// A site as the person typed it: {site} in its stored form, or {error} saying what to write.
export function parseSite(text) {
  let value = String(text ?? "").trim().toLowerCase();
  if (value === "") return { error: "Type a site, like bank.example or *.example.com." };
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(value)) {
    // A pasted url: its host is what the rule is about.
    try {
      value = new URL(value).hostname;
    } catch {
      return { error: `${JSON.stringify(text)} is not a url or a site; write a site like bank.example.` };
    }
  }
  let wildcard = false;
  if (value.startsWith("*.")) {
    wildcard = true;
    value = value.slice(2);
  }
  if (/[/:?#@\s*]/.test(value)) {
    return {
      error:
        `${JSON.stringify(text)} is not a site: write a host only, like bank.example or *.example.com ` +
        "(no path, no port; a rule covers every port and both http and https).",
    };
  }
  let host;
  try {
    host = new URL(`http://${value}/`).hostname; // lower case, punycode, a trailing dot kept
  } catch {
    return { error: `${JSON.stringify(text)} is not a host name; write a site like bank.example.` };
  }
  host = host.replace(/\.$/, "");
  const labels = host.split(".");
  if (!IPV4.test(host) && (labels.some((label) => !LABEL.test(label)) || host.length > 253)) {
    return { error: `${JSON.stringify(text)} is not a host name; write a site like bank.example.` };
  }
  if (wildcard && IPV4.test(host)) return { error: "An IP address has no subdomains: write it without *." };
  return { site: wildcard ? `*.${host}` : host };
}

// A stored or received list, keeping only the sites that parse, each once.
function cleanSites(list) {
  if (!Array.isArray(list)) return [];
  const sites = list.map((entry) => parseSite(entry).site).filter(Boolean);
  return [...new Set(sites)].slice(0, MAX_SITES);
}

// The person's rules as stored, or the empty ones: what the popup shows and the gate applies.
export function personRules(stored) {
  const mode = SITE_MODES.includes(stored?.mode) ? stored.mode : "never";
  return { mode, sites: cleanSites(stored?.sites) };
}

// The daemon's rules from its hello; null when it gave none.
export function daemonRules(frame) {
  if (!frame || typeof frame !== "object") return null;
  const never = cleanSites(frame.never);
  const only = Array.isArray(frame.only) ? cleanSites(frame.only) : null;
  return never.length > 0 || only !== null ? { never, only } : null;
}

// The host the rules judge a url by: "" for a file page, null for a url that is no site (about:,
// data:, chrome:, an extension's page; Chrome keeps extensions out of most of these anyway).
export function hostOf(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  // A blob: or filesystem: url is its creator's origin's.
  if (parsed.protocol === "blob:" || parsed.protocol === "filesystem:") return hostOf(parsed.pathname);
  if (parsed.protocol === "file:") return "";
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  return parsed.hostname.replace(/\.$/, "").replace(/^\[|\]$/g, "");
}

export function matchesSite(site, host) {
  if (site.startsWith("*.")) return host.endsWith(site.slice(1));
  if (IPV4.test(site)) return host === site;
  return host === site || host.endsWith(`.${site}`);
}

// What refuses `url`: null, or {host, rule, mode, source} naming the rule that matched ("only" names
// the list the host is missing from).
export function ruling(url, person, daemon = null) {
  const host = hostOf(url);
  if (host === null) return null;
  const sets = [{ source: "popup", never: person.mode === "never" ? person.sites : [], only: person.mode === "only" ? person.sites : null }];
  if (daemon) sets.push({ source: "daemon", ...daemon });
  for (const { source, never, only } of sets) {
    const rule = never.find((site) => matchesSite(site, host));
    if (rule) return { host, rule, mode: "never", source };
    if (only && !only.some((site) => matchesSite(site, host))) return { host, rule: null, mode: "only", source };
  }
  return null;
}

const SHOWN_ONLY = 5;

// The refusal of a ruled-out site: what was asked (`what`, e.g. "Tab 3 shows localhost"), the rule,
// and what the person can do. `data` carries the rule for programs.
export function siteBlocked(found, what, { tab = null, only = [] } = {}) {
  const where = found.host || "a file page";
  const list =
    only.length > SHOWN_ONLY ? `${only.slice(0, SHOWN_ONLY).join(", ")} and ${only.length - SHOWN_ONLY} more` : only.join(", ");
  let why;
  if (found.source === "daemon") {
    why =
      found.mode === "never"
        ? `this tabpilot daemon rules out ${where} (its --block-site rule "${found.rule}")`
        : `this tabpilot daemon lets the AI act only on ${list || "no site"} (its --only-site rules), and ${where} is not one of them`;
    why += ". Work on another site; only whoever runs the daemon can change its rules";
  } else {
    why =
      found.mode === "never"
        ? `the person at this browser does not let the AI act on ${where} (rule "${found.rule}" in the Sites list of the tabpilot popup)`
        : `the person at this browser lets the AI act only on the sites in the tabpilot popup's list (${list || "none yet"}), and ${where} is not one of them`;
    why += ". Work on another site, or ask the person: only they can change the list, in the extension popup";
  }
  return new CommandError("site_blocked", `${what}: ${why}.`, {
    tab,
    data: { host: found.host, rule: found.rule, mode: found.mode, source: found.source },
  });
}

// Pages Chrome keeps every extension out of, whatever the rules; the popup lists them and
// tab_not_scriptable's message names the one a tab shows.
export const NEVER_SCRIPTABLE = [
  { pattern: "chrome://", what: "Chrome's own pages (settings, new tab, history, extensions)" },
  { pattern: "chrome-extension://", what: "the pages of extensions, this one's included" },
  { pattern: "chromewebstore.google.com", what: "the Chrome Web Store (and chrome.google.com/webstore)" },
  { pattern: "devtools://", what: "the developer tools" },
  { pattern: "view-source:", what: "a page's source view" },
  { pattern: "about:", what: "about: pages other than about:blank" },
];

// Why Chrome refuses every extension this url, in words, or null.
export function neverScriptable(url) {
  const text = String(url ?? "");
  if (/^https:\/\/(chromewebstore\.google\.com|chrome\.google\.com\/webstore)([/?#]|$)/i.test(text)) {
    return "Chrome never lets extensions act on the Chrome Web Store";
  }
  if (/^(chrome|chrome-untrusted|edge|brave):/i.test(text)) return "Chrome never lets extensions act on its own pages";
  if (/^chrome-extension:/i.test(text)) return "Chrome never lets an extension act on extension pages";
  if (/^devtools:/i.test(text)) return "Chrome never lets extensions act on the developer tools";
  if (/^view-source:/i.test(text)) return "Chrome never lets extensions act on a source view";
  if (/^about:/i.test(text) && !/^about:blank([?#]|$)/i.test(text)) return "Chrome never lets extensions act on about: pages";
  return null;
}

// The live rules: the person's from storage, the daemon's from its hello. `check(url)` is a pure
// function of what is held, so the gate costs nothing on the fast path; `active()` is false while
// no rule is set, and the gate's extra work (a frame's url before a port opens) is skipped.
export function createSiteRules({ chrome }) {
  let person = personRules(null);
  let daemon = null;
  let failed = false;
  let settled = false;
  const listeners = new Set();
  const changed = () => {
    for (const listener of listeners) listener();
  };

  // Registered in the worker's first turn, as Chrome wants.
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || !(SITE_RULES_KEY in changes)) return;
    person = personRules(changes[SITE_RULES_KEY].newValue);
    failed = false;
    settled = true;
    changed();
  });

  const ready = Promise.resolve(chrome.storage.local.get(SITE_RULES_KEY))
    .then((stored) => {
      if (!settled) person = personRules(stored?.[SITE_RULES_KEY]);
    })
    .catch((err) => {
      // Rules that cannot be read are not taken as none: every site is refused until they can.
      console.warn("tabpilot: could not read the site rules", err);
      if (!settled) failed = true;
    });

  const active = () => failed || person.sites.length > 0 || person.mode === "only" || daemon !== null;

  function check(url) {
    if (failed) return { host: hostOf(url) ?? "", rule: null, mode: "unreadable", source: "popup" };
    if (!active()) return null;
    return ruling(url, person, daemon);
  }

  // The error for a url `check` refused; `what` says what was asked of it.
  function refusal(found, what, tab = null) {
    if (found.mode === "unreadable") {
      return new CommandError(
        "site_blocked",
        `${what}: the site rules in the tabpilot popup could not be read, so no site is allowed. ` +
          "Ask the person at the browser to open the popup and check its Sites list.",
        { tab },
      );
    }
    const only = found.source === "daemon" ? (daemon?.only ?? []) : person.sites;
    return siteBlocked(found, what, { tab, only });
  }

  // Throws site_blocked if `url` is ruled out.
  function assertUrl(url, what) {
    const found = check(url);
    if (found) throw refusal(found, what);
  }

  return {
    ready,
    active,
    check,
    refusal,
    assertUrl,
    person: () => person,
    daemon: () => daemon,
    setDaemon(frame) {
      const next = daemonRules(frame);
      if (JSON.stringify(next) === JSON.stringify(daemon)) return;
      daemon = next;
      changed();
    },
    onChange: (listener) => listeners.add(listener),
  };
}
