// browser_act, the worker's side (docs/protocol.md §1, "browser_act"). The DOM route asks the tab's
// content script to act (content/act.js); the debugger route asks it where the element is and sends
// trusted input there (input.js). Either way the answer says what happened meanwhile: a navigation
// of the tab, tabs it opened (remembered as the AI's, tabs.js), dialogs answered, downloads started
// (tab/downloads.js).
import "../../shared/act-common.js";
import { CommandError } from "../link/errors.js";
import { DEBUGGER_SWITCH } from "../tab/debugger.js";
import { pageError } from "../tab/ref-docs.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";

const { checkParams, parseKey, domHandles, sentence, pointerOptions, repeatTimes } = globalThis.__tabpilotActCommon;
// What a click, a press and a drag may add to an act message (content/act.js, mouse.js, drag.js).
const POINTER_FIELDS = ["button", "count", "modifiers", "hold_ms", "to_ref", "to_x", "to_y"];

export const DEFAULT_ACT_MS = 10_000;
// How long an action's consequences get to show before the answer: a click's navigation or new tab
// reaches the worker a few milliseconds after the content script's answer. Anything that started
// within it (a navigation) is then waited for.
export const QUIET_MS = 150;
// How long an answer waits for a download the action started to finish (or, after a navigation
// that turned into a download, to appear): a longer one is reported in progress.
const DOWNLOAD_MS = 1000;
const CHANNEL_CLOSED = /message (channel|port) closed/i;
const OPENABLE = /^https?:\/\//i;

// A refusal from act-common.js or the page (`{code, message, data}`) as the command's error.
function asCommandError(err, tab) {
  if (err instanceof CommandError || typeof err?.code !== "string") return err;
  return new CommandError(err.code, err.message, { tab: tab ? tabInfo(tab) : null, data: err.data });
}

// Trusted input needs the debugger, which a person's browser allows only with its switch on.
export async function assertTrusted(debug) {
  await debug.reload();
  if (!debug.allowed()) {
    throw new CommandError(
      "debugger_disabled",
      `Trusted input goes through chrome.debugger, which this browser allows only with ${DEBUGGER_SWITCH}. ` +
        "Ask the person at the browser to turn it on in the tabpilot popup, or leave trusted unset to act " +
        "through the page's DOM.",
    );
  }
}

// Gets the tab ready for an action (browser_act, browser_mouse): where the debugger may be used it
// holds the tab first, since only a session attached before a dialog opens can answer it
// (debugger.js); a dialog left open is dismissed where it may be; a tab still stuck in an earlier
// script is refused (tab-watch.js). Returns the dialogs answered.
export async function readyToAct({ debug, dialogs, tabWatch }, tab) {
  await debug.reload();
  await debug.hold(tab.id);
  const answered = [];
  const before = await dialogs.settle(tab, { dialog: "dismiss" });
  if (before) answered.push(before);
  await tabWatch.guard(tab);
  return answered;
}

// browser_act's description, shortened for the popup's narrow Recent activity: `Typed 5 characters
// into textbox "Email" (e3)` reads "typed into textbox 'Email'". What was typed is never shown.
export function actSummary(params, result) {
  const description = result?.result?.description;
  if (result?.ok !== true || typeof description !== "string" || description === "") {
    return `tried to ${params?.kind ?? "act"}${params?.ref ? ` ${params.ref}` : ""}`;
  }
  const words = description
    .split(/[:;] /)[0]
    .replace(/ \(e\d+\)/g, "")
    .replace(/"((?:[^"\\]|\\.)*)"/g, "'$1'")
    .replace(/^Typed \d+ characters? into/, "Typed into");
  return words.charAt(0).toLowerCase() + words.slice(1);
}

// The frame every action in a tab runs in, whatever it does there (browser_act; browser_fill_form,
// form.js): the tab made ready, a watch on what the action sets going (a navigation, new tabs,
// dialogs), the action within its timeout, then the answer once that has shown.
export function createActRunner({ chrome, tabs, ports, debug, dialogs, tabWatch, frames, aiTabs, downloads, withTimeout }) {
  const openers = new Map(); // tab id -> Set of functions told of each tab it opens
  const quiet = new Set(); // tabs whose last DOM action started nothing (see followUp)
  // Registered in the worker's first turn, like every listener Chrome must wake the worker for.
  chrome.tabs.onCreated?.addListener((created) => {
    for (const told of openers.get(created.openerTabId) ?? []) told(created);
  });

  // The tabs `tabId` opens from now on; each is the AI's.
  function watchOpened(tabId) {
    const opened = [];
    const told = (tab) => {
      if (opened.some((t) => t.id === tab.id)) return;
      opened.push(tab);
      aiTabs.add(tab).catch((err) => console.warn("tabpilot: could not remember a tab the AI opened", err));
    };
    const set = openers.get(tabId) ?? new Set();
    openers.set(tabId, set);
    set.add(told);
    return {
      opened,
      add: told,
      stop() {
        set.delete(told);
        if (set.size === 0) openers.delete(tabId);
      },
    };
  }

  // One action's way to the page: `job` is {tab, cancelled(), opened, where}; `where` keeps the url
  // and title the page last answered with.
  async function toPage(job, message) {
    const { tab } = job;
    const answer = await deliver(chrome, ports, tab, message, job.cancelled);
    if (typeof answer?.url === "string") job.where = { id: tab.id, url: answer.url, title: answer.title ?? "" };
    if (answer?.ok === true) return answer.result ?? {};
    if (!answer || typeof answer !== "object") throw new Error("The message channel closed before the page answered.");
    throw pageError(tab, answer);
  }

  // What a DOM action's answer says of its consequences: a link to a new tab, which an untrusted
  // click cannot open past the popup blocker, is opened here; a page that saw no navigation start
  // (content/act.js) and opened no tab needs no waiting for one (settle).
  async function followUp(job, result) {
    const { tab, opened } = job;
    if (typeof result.open === "string" && OPENABLE.test(result.open)) {
      opened.add(
        await chrome.tabs.create({
          url: result.open,
          openerTabId: tab.id,
          windowId: tab.windowId,
          index: tab.index + 1,
          active: true,
        }),
      );
    }
    if (result.navigating === false && !result.open) quiet.add(tab.id);
  }

  // Waits for what the action set going: a navigation it started (until the new page's DOM is
  // there), a tab it opened. Ends after QUIET_MS when nothing started, at once when the page said
  // that nothing did.
  async function settle(tracker, opened, left, calm) {
    const begun = Date.now();
    const remaining = () => Math.max(0, left - (Date.now() - begun));
    const moving = (s) => s.started || s.committed || s.sameDocument || s.closed || opened.opened.length > 0;
    await tracker.wait(moving, calm ? 0 : Math.min(QUIET_MS, remaining()));
    const s = tracker.state;
    if ((s.started || s.committed) && !s.closed)
      await tracker.wait((st) => st.error !== null || st.closed || st.domReady, remaining());
  }

  const readyTab = (tab) => readyToAct({ debug, dialogs, tabWatch }, tab);

  // The action (`action.work(job)`, which answers the result's own fields) within timeoutMs. A page that
  // went away before it answered was navigated by the action, which did its part.
  async function perform(job, action, timeoutMs, stuck) {
    const { tab, tracker } = job;
    try {
      return await withTimeout(Promise.race([action.work(job), stuck]), timeoutMs, () => {
        job.expired = true;
        return new CommandError(
          "execution_timeout",
          `${action.label} did not finish within ${timeoutMs} ms: the page is busy or stuck. ` +
            "Raise timeout_ms, or look at the tab.",
          { tab: tabInfo(tab) },
        );
      });
    } catch (err) {
      const closed = CHANNEL_CLOSED.test(String(err?.message));
      if (closed && tracker.state.closed) {
        throw new CommandError("tab_closed", `Tab ${tab.id} was closed before the ${action.label} was answered.`, {
          tab: tabInfo(tab),
        });
      }
      if (!(closed && (tracker.state.started || tracker.state.committed))) throw asCommandError(err, tab);
      return { description: `${action.gone}; the page navigated before it answered` };
    }
  }

  // The answer, once what the action set going has shown (settle): the action's own fields, then
  // where the tab is now, whether it navigated, the tabs it opened and the dialogs answered.
  async function answerOf(job, own, answered, left) {
    const { tab, tracker, opened } = job;
    // A navigation to a response that turned into a download ends aborted, without committing.
    const aborted = tracker.state.error === "net::ERR_ABORTED" && !tracker.state.committed;
    const wait = job.downloads.seen.length > 0 || aborted ? Math.min(DOWNLOAD_MS, Math.max(0, left)) : 0;
    const started = await job.downloads.settle(wait, aborted);
    // Where the page answered from, unless something moved since: then Chrome says where it is.
    const s = tracker.state;
    const still = job.where && !(s.started || s.committed || s.sameDocument || s.closed) && opened.opened.length === 0;
    const now = still ? job.where : tabInfo(await chrome.tabs.get(tab.id).catch(() => tab));
    const navigated = s.committed || s.sameDocument || now.url !== tabInfo(tab).url;
    const newTabs = await Promise.all(opened.opened.map((t) => chrome.tabs.get(t.id).then(tabInfo, () => tabInfo(t))));
    const result = { ...own, route: job.route, navigated, url: now.url, new_tabs: newTabs };
    if (answered.length > 0) result.dialogs = answered;
    if (started.length > 0) result.downloads = started;
    return { result, result_type: "object", tab: now };
  }

  // Runs `action.work` in the tab params.tab_id names, on `action.route` (or the one it picks, a
  // function of the tab). `label` names the action in messages ("browser_act click"); `gone` is
  // what the answer says was done when the page navigated before answering ("Did click on e5").
  async function run(params, action) {
    const { route } = action;
    const timeoutMs = Number.isInteger(params.timeout_ms) && params.timeout_ms > 0 ? params.timeout_ms : DEFAULT_ACT_MS;
    const started = Date.now();
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    let chosen = route;
    if (typeof route === "function") {
      try {
        chosen = await route(tab);
      } catch (err) {
        throw asCommandError(err, tab);
      }
    }
    const answered = await readyTab(tab);
    const job = {
      tab,
      route: chosen,
      tracker: frames.follow(tab.id),
      opened: watchOpened(tab.id),
      downloads: downloads.during(tab),
      where: null,
      expired: false,
    };
    job.cancelled = () => job.expired;
    // A dialog the action raises stops the page: dismissed as for scripts where the debugger may,
    // else the action fails with dialog_open rather than at its timeout.
    const dialogWatch = dialogs.answerDuring(tab, { dialog: "dismiss" }, answered);
    quiet.delete(tab.id); // what an earlier action left, if it failed after the page answered
    try {
      const own = await perform(job, action, timeoutMs, dialogWatch.stuck);
      const calm = quiet.delete(tab.id) && answered.length === 0;
      await settle(job.tracker, job.opened, timeoutMs - (Date.now() - started), calm);
      return await answerOf(job, own, answered, timeoutMs - (Date.now() - started));
    } finally {
      job.downloads.stop();
      dialogWatch.stop();
      job.opened.stop();
      job.tracker.stop();
    }
  }

  return { run, toPage, followUp };
}

// browser_act: one action on the DOM route (content/act.js) or the debugger route (input.js).
export function createPageAct(deps) {
  const { debug, input } = deps;
  const { run, toPage, followUp } = createActRunner(deps);

  async function routeFor(params) {
    if (params.trusted === true) {
      await assertTrusted(debug);
      // Options are chosen through the DOM on both routes, as Playwright does too: a native
      // select's popup is drawn by the browser, outside the page.
      return params.kind === "select" ? "dom" : "debugger";
    }
    // A key whose browser action the DOM route cannot do (caret keys, say) goes the trusted way
    // where the debugger is allowed anyway.
    if (params.trusted == null && params.kind === "press" && !domHandles(parseKey(params.key))) {
      await debug.reload();
      if (debug.allowed()) return "debugger";
    }
    return "dom";
  }

  async function viaDom(job, p) {
    const message = { type: "act", kind: p.kind, ref: p.ref ?? null, text: p.text ?? null, key: p.key ?? null };
    Object.assign(message, {
      direction: p.direction ?? null,
      amount: p.amount ?? null,
      submit: p.submit === true,
      values: p.values ?? null,
    });
    for (const name of POINTER_FIELDS) if (p[name] != null) message[name] = p[name];
    const result = await toPage(job, message);
    await followUp(job, result);
    return String(result.description ?? "");
  }

  async function viaDebugger(job, p) {
    const { tab } = job;
    const ref = p.ref ?? null;
    const locate = (kind, at = ref) => toPage(job, { type: "locate", ref: at, kind, direction: p.direction ?? null });
    switch (p.kind) {
      case "click":
      case "hover": {
        const at = await locate(p.kind);
        const options = pointerOptions(p);
        if (p.kind === "click") await input.click(tab.id, at.x, at.y, options);
        else await input.move(tab.id, at.x, at.y);
        return sentence(p.kind, { what: at.description, ref, options });
      }
      case "drag":
        return trustedDrag(job, p, locate);
      case "check":
      case "uncheck": {
        const want = p.kind === "check";
        const at = await locate(p.kind);
        if (at.checked === want) return sentence(p.kind, { what: at.description, ref, already: true });
        await input.click(tab.id, at.x, at.y);
        const after = await locate("state");
        return sentence(p.kind, { what: at.description, ref, state: after.checked });
      }
      case "type": {
        const at = await locate("type");
        await input.insertText(tab.id, p.text);
        if (p.submit === true) await input.key(tab.id, parseKey("Enter"));
        return sentence("type", { what: at.description, ref, text: p.text, submit: p.submit === true });
      }
      case "press": {
        const key = parseKey(p.key);
        const at = ref ? await locate("press") : null;
        if (p.hold_ms != null) {
          const repeats = await input.hold(tab.id, key, p.hold_ms, repeatTimes(p.hold_ms));
          return sentence("press", { what: at?.description, ref, key: key.name, held: p.hold_ms, repeats });
        }
        await input.key(tab.id, key);
        return sentence("press", { what: at?.description, ref, key: key.name });
      }
      case "scroll": {
        if (ref && !p.direction) return sentence("scroll", { what: (await locate("scroll")).description, ref });
        const view = await input.viewport(tab.id);
        const at = ref ? await locate("scroll") : { x: view.width / 2, y: view.height / 2, description: "the page" };
        const direction = p.direction ?? "down";
        const vertical = direction === "up" || direction === "down";
        const amount =
          Number.isInteger(p.amount) && p.amount > 0 ? p.amount : Math.round(vertical ? view.height : view.width);
        const delta = (direction === "up" || direction === "left" ? -1 : 1) * amount;
        await input.wheel(tab.id, at.x, at.y, vertical ? 0 : delta, vertical ? delta : 0);
        return sentence("scroll", { what: at.description, ref, direction, amount });
      }
    }
    throw new CommandError("invalid_request", `browser_act ${p.kind} has no trusted route.`);
  }

  // A trusted drag of p.ref onto p.to_ref or to (to_x, to_y), and where the element ended up as
  // the page shows it (content/drag.js). A target ref that is stale fails before anything moves.
  async function trustedDrag(job, p, locate) {
    const place = () => toPage(job, { type: "drag_place", ref: p.ref, to_ref: p.to_ref ?? null });
    const before = await place();
    const point = p.to_ref ? null : await toPage(job, { type: "mouse_at", x: p.to_x, y: p.to_y });
    const onto = p.to_ref ? await locate("hover", p.to_ref) : null;
    const from = await locate("hover");
    // Where the target is once the source is in view.
    const to = onto ? await locate("hover", p.to_ref) : { x: p.to_x, y: p.to_y };
    await input.drag(job.tab.id, from, { x: to.x, y: to.y }, pointerOptions({ modifiers: p.modifiers }));
    const { place: after } = await place();
    if (after) after.moved = after.parent !== before.place?.parent || after.index !== before.place?.index;
    const f = onto ? { toWhat: before.to, toRef: p.to_ref } : { x: p.to_x, y: p.to_y, over: point.element };
    return sentence("drag", { what: before.what, ref: p.ref, place: after, ...f });
  }

  return async function browserAct(params) {
    try {
      checkParams(params);
    } catch (err) {
      throw asCommandError(err);
    }
    const work = async (job) => ({ description: await (job.route === "debugger" ? viaDebugger : viaDom)(job, params) });
    const gone = `Did ${params.kind}${params.ref ? ` on ${params.ref}` : ""}`;
    return run(params, { label: `browser_act ${params.kind}`, route: () => routeFor(params), work, gone });
  };
}
