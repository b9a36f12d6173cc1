// browser_act, the worker's side (docs/protocol.md §1, "browser_act"). The DOM route asks the tab's
// content script to act (content/act.js); the debugger route asks it where the element is and sends
// trusted input there (input.js). Either way the answer says what happened meanwhile: a navigation
// of the tab, tabs it opened (remembered as the AI's, tabs.js), dialogs answered, downloads started
// (the frame every action runs in: tab/act-runner.js).
import "../../shared/act-common.js";
import { CommandError } from "../link/errors.js";
import { asCommandError, assertTrusted, createActRunner } from "../tab/act-runner.js";
import { DEBUGGER_SWITCH } from "../tab/debugger.js";
import { toTop } from "../tab/ref-frames.js";
import { tabInfo } from "../tab/tabs.js";

export { DEFAULT_ACT_MS, QUIET_MS, assertTrusted, createActRunner, deadLink, readyToAct } from "../tab/act-runner.js";

const { checkParams, parseKey, domHandles, sentence, pointerOptions, repeatTimes } = globalThis.__tabpilotActCommon;
// What a click, a press and a drag may add to an act message (content/act.js, mouse.js, drag.js).
const POINTER_FIELDS = ["button", "count", "modifiers", "hold_ms", "to_ref", "to_x", "to_y"];

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

export function createPageAct(deps) {
  const { debug, input, chrome, ports } = deps;
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
    if (typeof result.unseen === "string") job.unseen = result.unseen;
    if (typeof result.needsTrusted === "string") return trustedInstead(job, p, result.needsTrusted);
    await followUp(job, result);
    return String(result.description ?? "");
  }

  // The page did not take the DOM route's untrusted input (a code editor or an app that reads only
  // trusted events, content/act-editors.js): the same act with trusted input where the debugger
  // may be used, said in the answer's `route`; otherwise a refusal that says what would work.
  async function trustedInstead(job, p, why) {
    await debug.reload();
    if (p.trusted !== false && debug.allowed()) {
      job.route = "debugger";
      return viaDebugger(job, p);
    }
    const next =
      p.trusted === false
        ? "Leave trusted unset to let tabpilot use trusted input where it may."
        : `Trusted input goes through chrome.debugger, which this browser allows only with ${DEBUGGER_SWITCH}. ` +
          "Ask the person at the browser to turn it on in the tabpilot popup, then retry.";
    throw new CommandError("debugger_disabled", `${why}. It needs trusted input. ${next}`, {
      tab: tabInfo(job.tab),
      data: { reason: "untrusted_ignored" },
    });
  }

  async function viaDebugger(job, p) {
    const { tab } = job;
    const ref = p.ref ?? null;
    // A point in a child frame is moved into the top viewport, where the debugger's input goes.
    const locate = async (kind, extra = {}) => {
      const at = await toPage(job, { type: "locate", ref, kind, direction: p.direction ?? null, ...extra });
      if (typeof at.unseen === "string" && (extra.ref ?? ref) === ref) job.unseen ??= at.unseen;
      return toTop(chrome, ports, tab, job.frameId, at);
    };
    // Between the pointer's move and its press, the page may put another element at the point.
    const stillThere = (at) => () => locate("hit", { x: at.frameX ?? at.x, y: at.frameY ?? at.y });
    // Text and keys go wherever the focus is, which the page may have moved.
    const focusKept = (text) => locate("focus", { text });
    switch (p.kind) {
      case "click":
      case "hover": {
        const at = await locate(p.kind);
        if (typeof at.link === "string") job.link = at.link;
        const options = pointerOptions(p);
        if (p.kind === "click") await input.click(tab.id, at.x, at.y, options, stillThere(at));
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
        await input.click(tab.id, at.x, at.y, undefined, stillThere(at));
        const after = await locate("state");
        return sentence(p.kind, { what: at.description, ref, state: after.checked });
      }
      case "type": {
        const at = await locate("type");
        job.unfocused = at.unfocused === true;
        await focusKept(true);
        // A code editor's text is selected by its own key binding (content/act-editors.js).
        if (at.selectAll) await input.key(tab.id, parseKey(at.selectAll));
        await input.insertText(tab.id, p.text);
        if (p.submit === true) await input.key(tab.id, parseKey("Enter"));
        const typed = sentence("type", { what: at.description, ref, text: p.text, submit: p.submit === true });
        const shows = at.selectAll && p.submit !== true ? (await locate("state")).shows : undefined;
        return typeof shows === "string" && shows !== p.text ? `${typed}; the editor holds ${JSON.stringify(shows)}` : typed;
      }
      case "press": {
        const key = parseKey(p.key);
        const at = ref ? await locate("press") : null;
        job.unfocused = at?.unfocused === true;
        if (ref) await focusKept(false);
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
    const onto = p.to_ref ? await locate("hover", { ref: p.to_ref }) : null;
    const from = await locate("hover");
    // Where the target is once the source is in view.
    const to = onto ? await locate("hover", { ref: p.to_ref }) : { x: p.to_x, y: p.to_y };
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
