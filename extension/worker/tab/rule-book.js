// The network rules of this browser (browser_network_rules, tools/network-rules.js), kept here so
// that the network log (tools/logs-network.js) can mark each request a rule touched. A browser is
// one context on the daemon, so the rules of this worker are the rules of its context.
//
// A rule's pattern is a glob over the whole url, as Playwright's route patterns: `**` matches any
// characters, `*` any characters but `/`; every other character is itself. It compiles to one
// regular expression, used both by Chrome (declarativeNetRequest's regexFilter, RE2) and here, so
// that the mark in the log and the rule Chrome applies agree.

export const MAX_PATTERN_CHARS = 1024;
// Kept in storage.session, so that a worker Chrome stopped and started again still knows them, as
// Chrome keeps the declarativeNetRequest session rules themselves.
export const RULES_KEY = "networkRules";

// The glob as an anchored regular expression, or {error} saying what is wrong with it.
export function compilePattern(pattern) {
  if (typeof pattern !== "string" || pattern === "") return { error: "the pattern is empty" };
  if (pattern.length > MAX_PATTERN_CHARS) return { error: `the pattern is longer than ${MAX_PATTERN_CHARS} characters` };
  const bad = /[\s\u0000-\u001f\u007f]/.exec(pattern);
  if (bad) return { error: `the pattern holds ${JSON.stringify(bad[0])}, which no url holds: a url has no spaces or control characters` };
  if (/\*{3,}/.test(pattern)) return { error: "`***` means nothing: use `**` (any characters) or `*` (any but /)" };
  if (!/^(\*|https?:\/\/|wss?:\/\/)/i.test(pattern)) {
    return {
      error:
        "the pattern matches the whole url, so it starts with http://, https://, ws://, wss:// or `*`; " +
        `e.g. "**/${pattern.replace(/^\/+/, "")}"`,
    };
  }
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return { regex: `^${source}$` };
}

// What each kind of rule does to a request, as the network log says it.
export const DID = { block: "blocked", redirect: "redirected", headers: "headers", mock: "mocked" };
// The order in which a request's rules are listed: what decides its fate first.
const ORDER = ["block", "mock", "redirect", "headers"];

export function createRuleBook({ chrome }) {
  let state = { next: 1, rules: [] };
  // Which tabs the rules apply to now: null for every tab (the managed browser), else a Set of ids
  // (the AI's tabs); and the tabs whose requests the debugger intercepts for mocks.
  let scope = new Set();
  let fetchTabs = new Set();
  const compiled = new Map(); // rule id -> RegExp

  const ready = Promise.resolve()
    .then(() => chrome.storage.session.get(RULES_KEY))
    .then((stored) => {
      const kept = stored?.[RULES_KEY];
      if (kept && Array.isArray(kept.rules) && Number.isInteger(kept.next)) state = kept;
    })
    .catch((err) => console.warn("tabpilot: could not load the network rules", err));

  const regexOf = (rule) => {
    let found = compiled.get(rule.id);
    if (!found) {
      found = new RegExp(compilePattern(rule.pattern).regex);
      compiled.set(rule.id, found);
    }
    return found;
  };
  const matches = (rule, url, type) =>
    (rule.types === null || rule.types.includes(type)) && regexOf(rule).test(url);

  return {
    ready,
    rules: () => state.rules,
    nextId: () => state.next,
    // Replaces the rules (after Chrome took them) and keeps them for a worker restart.
    async commit(rules, next = state.next) {
      state = { next, rules };
      compiled.clear();
      await Promise.resolve(chrome.storage.session.set({ [RULES_KEY]: state })).catch(() => {});
    },
    setScope(tabs) {
      scope = tabs;
    },
    setFetchTabs(tabs) {
      fetchTabs = tabs;
    },
    inScope: (tabId) => scope === null || scope.has(tabId),
    // The first mock rule for a request the debugger paused.
    mockFor: (url, type) => state.rules.find((rule) => rule.kind === "mock" && matches(rule, url, type)) ?? null,
    // What the rules did to a request of the tab, [{id, did}], decisive first; [] for none. A mock
    // counts only where the debugger intercepts the tab's requests.
    touched(tabId, url, type) {
      if (state.rules.length === 0 || !(scope === null || scope.has(tabId))) return [];
      return state.rules
        .filter((rule) => (rule.kind !== "mock" || fetchTabs.has(tabId)) && matches(rule, url, type))
        .sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind))
        .map((rule) => ({ id: rule.id, did: DID[rule.kind] }));
    },
  };
}
