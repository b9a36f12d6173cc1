// browser_network_rules: block, redirect, rewrite the request headers of, or answer (mock) the
// requests of the AI's tabs whose url matches a glob (tab/rule-book.js keeps the rules).
//
// Two routes. Block, redirect and headers are declarativeNetRequest session rules: no debugger,
// no banner, and Chrome applies them before the request leaves. A mock needs a body, which only
// the debugger's Fetch domain can give (Fetch.enable, then Fetch.fulfillRequest on each paused
// request): in a person's Chrome only with the debugger switch on, in the managed browser always.
//
// Scope: the person's own traffic is never touched. In a person's Chrome every rule is limited to
// the AI's tabs (tab/ai-tabs.js: condition.tabIds, and the debugger attached to those tabs only),
// and follows that set as tabs join and leave it; in the managed browser every tab is the AI's.
import { CommandError } from "../link/errors.js";
import { DEBUGGER_KEY, DEBUGGER_SWITCH } from "../tab/debugger.js";
import { compilePattern } from "../tab/rule-book.js";
import { REQUEST_TYPES } from "./logs-network.js";

const KINDS = ["block", "redirect", "headers", "mock"];
// Rules per browser: far below declarativeNetRequest's session quota (5000, of which 1000 regex).
export const MAX_RULES = 100;
export const MAX_BODY_CHARS = 1_000_000;
const MAX_HEADER_CHARS = 8192;
// declarativeNetRequest's resource types for each type the network log names.
const DNR_TYPES = {
  document: ["main_frame", "sub_frame"],
  xhr: ["xmlhttprequest"],
};
const dnrTypes = (types) => (types ?? REQUEST_TYPES).flatMap((type) => DNR_TYPES[type] ?? [type]);
// The Fetch domain's resource types as the network log names them.
const FETCH_TYPES = {
  Document: "document",
  Stylesheet: "stylesheet",
  Image: "image",
  Media: "media",
  Font: "font",
  Script: "script",
  XHR: "xhr",
  Fetch: "xhr",
  EventSource: "xhr",
  WebSocket: "websocket",
  Ping: "ping",
  CSPViolationReport: "csp_report",
};
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A tab id no tab has. declarativeNetRequest refuses an empty tabIds, and a rule is still handed
// to Chrome (which checks it, and keeps it for the next AI tab) while the AI has no tab.
const NO_TAB = 2 ** 31 - 1;
// chrome.tabs.TAB_ID_NONE: a request of no tab.
const TAB_ID_NONE = -1;
// The fields each kind of rule takes besides pattern and types.
const FIELDS = {
  block: [],
  redirect: ["redirect_to"],
  headers: ["set_headers", "remove_headers"],
  mock: ["status", "headers", "body"],
};

const invalid = (message) => new CommandError("invalid_rule", message);
const given = (value) => value !== undefined && value !== null;

function checkHeaders(headers, what) {
  if (!given(headers)) return {};
  if (typeof headers !== "object" || Array.isArray(headers)) throw invalid(`${what} is an object of header names to values.`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw invalid(`${JSON.stringify(name)} in ${what} is not a header name.`);
    if (typeof value !== "string" || /[\r\n\0]/.test(value) || value.length > MAX_HEADER_CHARS) {
      throw invalid(`The value of ${name} in ${what} must be one line of text, at most ${MAX_HEADER_CHARS} characters.`);
    }
  }
  return headers;
}

// The rule of an `add`, checked whole before anything changes; or invalid_rule saying what is wrong.
export function ruleOf(params, id) {
  const kind = params.kind;
  if (!KINDS.includes(kind)) throw invalid(`kind must be one of ${KINDS.join(", ")}; got ${JSON.stringify(kind)}.`);
  const compiled = compilePattern(params.pattern);
  if (compiled.error) {
    throw invalid(
      `The pattern ${JSON.stringify(params.pattern ?? null)} is malformed: ${compiled.error}. A pattern is a glob over ` +
        'the whole url: "**" any characters, "*" any but "/"; e.g. "**/api/*" or "https://cdn.example.com/**".',
    );
  }
  let types = null;
  if (given(params.types)) {
    const unknown = Array.isArray(params.types) ? params.types.filter((type) => !REQUEST_TYPES.includes(type)) : [params.types];
    if (unknown.length > 0 || params.types.length === 0) {
      throw invalid(`Unknown resource type ${JSON.stringify(unknown[0] ?? [])}; the types are ${REQUEST_TYPES.join(", ")}.`);
    }
    types = [...new Set(params.types)];
  }
  for (const [other, fields] of Object.entries(FIELDS)) {
    const stray = other === kind ? undefined : fields.find((field) => given(params[field]) && !FIELDS[kind].includes(field));
    if (stray) throw invalid(`\`${stray}\` belongs to a ${other} rule, not a ${kind} rule.`);
  }
  const rule = { id, kind, pattern: params.pattern, types, route: kind === "mock" ? "debugger" : "dnr" };
  if (kind === "redirect") {
    let target = null;
    try {
      target = new URL(params.redirect_to);
    } catch {}
    if (!target || !/^https?:$/.test(target.protocol)) {
      throw invalid(`redirect_to must be an http or https url; got ${JSON.stringify(params.redirect_to ?? null)}.`);
    }
    if (new RegExp(compiled.regex).test(target.href)) {
      throw invalid(`redirect_to ${target.href} matches the rule's own pattern, so the request would be redirected forever.`);
    }
    rule.redirect_to = target.href;
  } else if (kind === "headers") {
    rule.set_headers = checkHeaders(params.set_headers, "set_headers");
    const remove = params.remove_headers ?? [];
    if (!Array.isArray(remove) || remove.some((name) => typeof name !== "string" || !HEADER_NAME.test(name))) {
      throw invalid("remove_headers is a list of header names.");
    }
    rule.remove_headers = remove;
    if (Object.keys(rule.set_headers).length === 0 && remove.length === 0) {
      throw invalid("A headers rule needs set_headers or remove_headers.");
    }
  } else if (kind === "mock") {
    const status = params.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) throw invalid(`status must be 200 to 599; got ${status}.`);
    const body = params.body ?? "";
    if (typeof body !== "string" || body.length > MAX_BODY_CHARS) throw invalid(`body is text of at most ${MAX_BODY_CHARS} characters.`);
    Object.assign(rule, { status, headers: checkHeaders(params.headers, "headers"), body });
  }
  return rule;
}

// The declarativeNetRequest rule of one of ours, for the tabs in scope (null: every tab).
export function dnrRule(rule, tabIds) {
  const condition = {
    regexFilter: compilePattern(rule.pattern).regex,
    isUrlFilterCaseSensitive: true,
    resourceTypes: dnrTypes(rule.types),
  };
  // Every tab (the managed browser) is still only tabs: not the requests of no tab, such as the
  // worker's own link to the daemon.
  if (tabIds === null) condition.excludedTabIds = [TAB_ID_NONE];
  else condition.tabIds = tabIds.length > 0 ? tabIds : [NO_TAB];
  let action = { type: "block" };
  if (rule.kind === "redirect") action = { type: "redirect", redirect: { url: rule.redirect_to } };
  if (rule.kind === "headers") {
    action = {
      type: "modifyHeaders",
      requestHeaders: [
        ...Object.entries(rule.set_headers).map(([header, value]) => ({ header, operation: "set", value })),
        ...rule.remove_headers.map((header) => ({ header, operation: "remove" })),
      ],
    };
  }
  return { id: rule.id, priority: 1, condition, action };
}

// Fetch.enable's pattern for a glob: its wildcards are `*` (any characters) and `?`, escaped with
// a backslash. It may pause more than the glob matches; the worker's match decides.
const fetchPattern = (pattern) => pattern.replace(/[\\?]/g, "\\$&").replace(/\*+/g, "*");

function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

// A rule as answers show it: a mock's body by its size.
function shown(rule) {
  if (rule.kind !== "mock") return rule;
  const { body, ...rest } = rule;
  return { ...rest, body_size: body.length };
}

function rulesSummary(params, result) {
  const action = params?.action ?? "list";
  if (action === "add") return `added network rule ${result?.result?.rule?.id ?? ""}: ${params.kind} ${params.pattern}`;
  if (action === "remove") return `removed network rule ${params.id}`;
  if (action === "clear") return "cleared the network rules";
  return "listed the network rules";
}

export function createNetworkRulesTools({ chrome, debug, aiTabs, ruleBook: book }) {
  const dnr = () => chrome.declarativeNetRequest;
  const hasMocks = () => book.rules().some((rule) => rule.kind === "mock");
  // One change of Chrome's rules at a time: each computes the whole set from the book.
  let queue = Promise.resolve();
  const serial = (job) => {
    const run = queue.then(job);
    queue = run.catch(() => {});
    return run;
  };

  // The tabs the rules apply to: null for every tab (the managed browser), else the AI's open tabs.
  async function scopeTabs() {
    await debug.ready;
    if (debug.isManaged()) return null;
    const mine = new Set(await aiTabs.list());
    const open = await chrome.tabs.query({});
    return new Set(open.filter((tab) => mine.has(tab.id)).map((tab) => tab.id));
  }

  // Chrome's session rules become exactly the book's dnr rules, in one atomic update: when Chrome
  // refuses, it keeps what it had.
  async function applyDnr(rules, scope) {
    const wanted = rules.filter((rule) => rule.route === "dnr");
    if (!dnr()) {
      if (wanted.length === 0) return;
      throw new CommandError("extension_error", "This browser has no chrome.declarativeNetRequest.");
    }
    const existing = await dnr().getSessionRules();
    if (existing.length === 0 && wanted.length === 0) return;
    const tabIds = scope === null ? null : [...scope];
    await dnr().updateSessionRules({
      removeRuleIds: existing.map((rule) => rule.id),
      addRules: wanted.map((rule) => dnrRule(rule, tabIds)),
    });
  }

  // The debugger intercepts the requests of the tabs in scope while there are mock rules, and lets
  // go of the others. Returns how many tabs in scope it could not reach.
  let fetching = new Set();
  async function applyFetch(rules, scope) {
    const patterns = rules
      .filter((rule) => rule.kind === "mock")
      .map((rule) => ({ urlPattern: fetchPattern(rule.pattern), requestStage: "Request" }));
    await debug.reload();
    const open = (await chrome.tabs.query({})).map((tab) => tab.id);
    const wanted = debug.allowed() && patterns.length > 0 ? open.filter((id) => scope === null || scope.has(id)) : [];
    const enabled = new Set();
    let unreached = 0;
    await Promise.all(
      wanted.map((tabId) =>
        debug.send(tabId, "Fetch.enable", { patterns }).then(
          () => enabled.add(tabId),
          () => (unreached += 1),
        ),
      ),
    );
    const leaving = [...fetching].filter((id) => !enabled.has(id) && open.includes(id));
    if (debug.allowed()) await Promise.all(leaving.map((tabId) => debug.send(tabId, "Fetch.disable", {}).catch(() => {})));
    fetching = enabled;
    book.setFetchTabs(enabled);
    return unreached;
  }

  async function sync() {
    await book.ready;
    const scope = await scopeTabs();
    book.setScope(scope);
    await applyDnr(book.rules(), scope).catch((err) => console.warn("tabpilot: could not apply the network rules", err));
    return applyFetch(book.rules(), scope).catch((err) => {
      console.warn("tabpilot: could not intercept requests for the mock rules", err);
      return 0;
    });
  }

  // A worker Chrome started again finds its rules in the book and Chrome's; the scope is found anew.
  book.ready.then(() => book.rules().length > 0 && serial(sync)).catch(() => {});
  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  aiTabs.onChange?.(() => (book.rules().length > 0 || fetching.size > 0 ? serial(sync) : undefined));
  chrome.tabs.onCreated?.addListener(() => {
    // In the managed browser every new tab is in scope; the debugger holds it from its start.
    if (debug.isManaged() && hasMocks()) serial(sync).catch(() => {});
  });
  // The debugger switch turned off detaches every tab, and on again lets mocks answer again; a
  // tab whose debugger was detached (the person cancelled the banner) answers no mock.
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && DEBUGGER_KEY in changes && (fetching.size > 0 || hasMocks())) serial(sync).catch(() => {});
  });
  chrome.debugger?.onDetach?.addListener((source) => {
    if (fetching.delete(source.tabId)) book.setFetchTabs(fetching);
  });
  chrome.debugger?.onEvent?.addListener((source, method, params) => {
    if (method !== "Fetch.requestPaused") return;
    answerPaused(source.tabId, params).catch((err) => console.warn("tabpilot: could not answer a paused request", err));
  });

  async function answerPaused(tabId, paused) {
    await book.ready;
    const target = { tabId };
    const request = paused.request ?? {};
    const type = FETCH_TYPES[paused.resourceType] ?? "other";
    const rule = book.inScope(tabId) && fetching.has(tabId) ? book.mockFor(String(request.url), type) : null;
    if (!rule) return chrome.debugger.sendCommand(target, "Fetch.continueRequest", { requestId: paused.requestId });
    const headers = Object.entries(rule.headers).map(([name, value]) => ({ name, value }));
    // A page's cross-origin fetch reads the answer only if it allows the page's origin, as the
    // mocked server would; Playwright's route.fulfill adds the same.
    const origin = Object.entries(request.headers ?? {}).find(([name]) => name.toLowerCase() === "origin")?.[1];
    if (origin && !headers.some(({ name }) => name.toLowerCase() === "access-control-allow-origin")) {
      headers.push({ name: "Access-Control-Allow-Origin", value: origin }, { name: "Access-Control-Allow-Credentials", value: "true" });
    }
    return chrome.debugger.sendCommand(target, "Fetch.fulfillRequest", {
      requestId: paused.requestId,
      responseCode: rule.status,
      responseHeaders: headers,
      body: base64(rule.body),
    });
  }

  function answer(extra, unreached = 0) {
    const scope = (() => {
      const now = scopeOf();
      return hasMocks() ? { ...now, intercepting: fetching.size, ...(unreached ? { unreached } : {}) } : now;
    })();
    const result = { ...extra, rules: book.rules().map(shown), scope };
    return { result, result_type: "object", tab: null };
  }
  let lastScope = null;
  const scopeOf = () => (lastScope === null ? { all_tabs: true } : { all_tabs: false, tabs: lastScope.size });

  // A change of the rules: Chrome's rules first (an atomic update), the book after, so that a
  // refusal leaves both as they were.
  async function change(rules, next) {
    const scope = await scopeTabs();
    try {
      await applyDnr(rules, scope);
    } catch (err) {
      if (err instanceof CommandError) throw err;
      const message = String(err?.message ?? err);
      if (/quota|exceed|maximum|too many/i.test(message)) {
        throw new CommandError("rule_limit", `Chrome holds no more rules: ${message}. Remove rules (action "remove" or "clear") first.`);
      }
      throw invalid(`Chrome refused the rule: ${message}.`);
    }
    await book.commit(rules, next);
    book.setScope(scope);
    lastScope = scope;
    return applyFetch(rules, scope);
  }

  const actions = {
    async add(params) {
      if (book.rules().length >= MAX_RULES) {
        throw new CommandError("rule_limit", `This browser holds ${MAX_RULES} network rules, the most it takes. Remove some first.`);
      }
      const rule = ruleOf(params, book.nextId());
      if (rule.route === "dnr" && dnr()?.isRegexSupported) {
        const regex = compilePattern(rule.pattern).regex;
        const supported = await dnr().isRegexSupported({ regex, isCaseSensitive: true });
        if (!supported?.isSupported) {
          throw invalid(`Chrome cannot match the pattern ${JSON.stringify(rule.pattern)} (${supported?.reason ?? "unsupported"}); make it shorter or simpler.`);
        }
      }
      if (rule.route === "debugger") {
        await debug.reload();
        if (!debug.allowed()) {
          throw new CommandError(
            "debugger_disabled",
            `A mock answers requests through chrome.debugger's Fetch domain, which this browser allows only with ${DEBUGGER_SWITCH}. ` +
              "Ask the person at the browser to turn it on in the tabpilot popup; block, redirect and headers rules need no debugger.",
          );
        }
      }
      const unreached = await change([...book.rules(), rule], rule.id + 1);
      return answer({ rule: shown(rule) }, unreached);
    },
    async remove(params) {
      const id = params.id;
      if (!book.rules().some((rule) => rule.id === id)) {
        const ids = book.rules().map((rule) => rule.id);
        throw new CommandError(
          "rule_not_found",
          `No network rule ${JSON.stringify(id ?? null)} in this browser; its rules are ${ids.length ? ids.join(", ") : "none"} (action "list").`,
        );
      }
      await change(book.rules().filter((rule) => rule.id !== id), book.nextId());
      return answer({ removed: [id] });
    },
    async clear() {
      const removed = book.rules().map((rule) => rule.id);
      await change([], book.nextId());
      return answer({ removed });
    },
    async list() {
      const unreached = await sync();
      lastScope = await scopeTabs();
      return answer({}, unreached);
    },
  };

  async function networkRules(params) {
    await book.ready;
    const action = params.action ?? "list";
    if (!Object.hasOwn(actions, action)) {
      throw new CommandError("invalid_request", `Unknown action ${JSON.stringify(action)}; the actions are ${Object.keys(actions).join(", ")}.`);
    }
    return serial(() => actions[action](params));
  }

  return {
    handlers: { browser_network_rules: networkRules },
    summaries: { browser_network_rules: rulesSummary },
  };
}
