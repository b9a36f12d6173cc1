// The popup's Sites section: the sites the AI may never act on, or, in the other mode, the only ones
// it may (worker/link/site-rules.js). This page is the only writer of chrome.storage.local
// "siteRules"; the service worker reads it at every change. The daemon's own rules, if it gave
// any, are shown beside them, read only.
import { NEVER_SCRIPTABLE, SITE_RULES_KEY, MAX_SITES, parseSite, personRules } from "../worker/link/site-rules.js";

// onChange: told after the rules shown change (the status line names them).
export function createSitesView({ chrome, document, onChange = () => {} }) {
  const $ = (id) => document.getElementById(id);
  const modeInputs = { never: $("site-mode-never"), only: $("site-mode-only") };
  const form = $("site-form");
  const input = $("site-input");
  const error = $("site-error");
  const list = $("site-list");
  const empty = $("site-empty");
  const fromDaemon = $("site-daemon");
  let rules = personRules(null);

  for (const { pattern, what } of NEVER_SCRIPTABLE) {
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = pattern;
    item.append(code, ` ${what}`);
    $("never-scriptable").append(item);
  }

  // Kept here at once, so that a second change made before storage reports the first builds on it.
  const save = (next) => {
    rules = personRules(next);
    render();
    return chrome.storage.local.set({ [SITE_RULES_KEY]: rules });
  };

  function showError(text) {
    error.textContent = text;
    error.hidden = !text;
    input.setAttribute("aria-invalid", text ? "true" : "false");
  }

  function render() {
    modeInputs.never.checked = rules.mode === "never";
    modeInputs.only.checked = rules.mode === "only";
    list.replaceChildren(
      ...rules.sites.map((site) => {
        const item = document.createElement("li");
        const name = document.createElement("code");
        name.textContent = site;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.textContent = "Remove";
        remove.setAttribute("aria-label", `Remove ${site}`);
        remove.addEventListener("click", () => save({ ...rules, sites: rules.sites.filter((s) => s !== site) }));
        item.append(name, remove);
        return item;
      }),
    );
    empty.hidden = rules.sites.length > 0;
    empty.textContent =
      rules.mode === "only"
        ? "No site listed: the AI may act on no site until you add one."
        : "No site listed: the AI may act on any site while AI Web Pilot is on.";
    onChange();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { site, error: problem } = parseSite(input.value);
    if (problem) return showError(problem);
    if (rules.sites.includes(site)) return showError(`${site} is listed already.`);
    if (rules.sites.length >= MAX_SITES) return showError(`The list holds at most ${MAX_SITES} sites.`);
    showError("");
    input.value = "";
    save({ ...rules, sites: [...rules.sites, site] });
  });
  input.addEventListener("input", () => showError(""));
  for (const [mode, radio] of Object.entries(modeInputs)) {
    radio.addEventListener("change", () => {
      if (radio.checked) save({ ...rules, mode });
    });
  }

  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== "local" || !(SITE_RULES_KEY in changes)) return;
    rules = personRules(changes[SITE_RULES_KEY].newValue);
    render();
  });
  chrome.storage.local.get(SITE_RULES_KEY).then((stored) => {
    rules = personRules(stored[SITE_RULES_KEY]);
    render();
  });

  // The daemon's rules, from get_status (popup.js asks it every second).
  function showDaemon(daemon) {
    const parts = [];
    if (daemon?.never?.length) parts.push(`never on ${daemon.never.join(", ")}`);
    if (Array.isArray(daemon?.only)) parts.push(`only on ${daemon.only.join(", ") || "no site"}`);
    const text = parts.length ? `The daemon adds its own rules (tabpilot serve): ${parts.join("; ")}.` : "";
    if (fromDaemon.textContent !== text) fromDaemon.textContent = text;
    fromDaemon.hidden = !text;
  }

  return { showDaemon, rules: () => rules };
}
