// browser_mouse, the worker's side: the mouse at a point of the viewport, for an agent working from
// a screenshot. The DOM route asks the tab's content script to make the events (content/mouse.js,
// drag.js); the trusted route asks it what is at the point, then sends chrome.debugger's input
// there (tab/input.js). Either way the answer names what was at the point.
import "../../shared/act-common.js";
import { CommandError } from "../link/errors.js";
import { createInput } from "../tab/input.js";
import { pageError } from "../tab/ref-docs.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";
import { assertTrusted, readyToAct } from "./page-act.js";

const { mouseOptions, mouseSentence } = globalThis.__tabpilotActCommon;
const TIMEOUT_MS = 10_000;

// "clicked at (412, 230) on button 'Save'", for the popup's Recent activity.
function mouseSummary(params, result) {
  const description = result?.result?.description;
  if (result?.ok !== true || typeof description !== "string") return `tried the mouse (${params?.action ?? "?"})`;
  const words = description.split("; ")[0].replace(/ \(e\d+\)/g, "").replace(/"((?:[^"\\]|\\.)*)"/g, "'$1'");
  return words.charAt(0).toLowerCase() + words.slice(1);
}

export function createMouseTools({ chrome, tabs, ports, debug, dialogs, tabWatch, withTimeout }) {
  const input = createInput({ debug, chrome });

  async function toPage(tab, message) {
    const answer = await deliver(chrome, ports, tab, message);
    if (answer?.ok === true) return { result: answer.result ?? {}, where: { id: tab.id, url: answer.url, title: answer.title ?? "" } };
    if (!answer || typeof answer !== "object") throw new Error("The message channel closed before the page answered.");
    throw pageError(tab, answer);
  }

  async function viaDebugger(tab, p, o) {
    const { result: at, where } = await toPage(tab, { type: "mouse_at", x: p.x, y: p.y, to_x: p.to_x ?? null, to_y: p.to_y ?? null });
    const f = { x: p.x, y: p.y, element: at.element, names: o.names, button: o.button, dx: p.delta_x ?? 0, dy: p.delta_y ?? 0 };
    switch (p.action) {
      case "move":
        await input.move(tab.id, p.x, p.y);
        break;
      case "down":
        await input.move(tab.id, p.x, p.y);
        await input.down(tab.id, p.x, p.y, o);
        break;
      case "up":
        await input.up(tab.id, p.x, p.y, o);
        break;
      case "wheel":
        await input.wheel(tab.id, p.x, p.y, f.dx, f.dy, o);
        break;
      case "drag":
        await input.drag(tab.id, { x: p.x, y: p.y }, { x: p.to_x, y: p.to_y }, o);
        Object.assign(f, { to_x: p.to_x, to_y: p.to_y, to: at.to });
        break;
      default:
        await input.click(tab.id, p.x, p.y, o);
    }
    return { description: mouseSentence(p.action, f), where };
  }

  async function browserMouse(params) {
    let options;
    try {
      options = mouseOptions(params);
    } catch (err) {
      throw new CommandError(err.code ?? "invalid_request", err.message);
    }
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    const route = params.trusted === true ? "debugger" : "dom";
    if (route === "debugger") await assertTrusted(debug);
    // As for browser_act: a dialog left open, or one the action raises, is dismissed where the
    // debugger may be used, and fails the call with dialog_open elsewhere.
    const answered = await readyToAct({ debug, dialogs, tabWatch }, tab);
    const watch = dialogs.answerDuring(tab, { dialog: "dismiss" }, answered);
    const acting =
      route === "debugger"
        ? viaDebugger(tab, params, options)
        : toPage(tab, { type: "mouse", ...params }).then(({ result, where }) => ({ description: result.description, where }));
    const timeoutMs = Number.isInteger(params.timeout_ms) && params.timeout_ms > 0 ? params.timeout_ms : TIMEOUT_MS;
    let done;
    try {
      done = await withTimeout(
        Promise.race([acting, watch.stuck]),
        timeoutMs,
        () =>
          new CommandError(
            "execution_timeout",
            `browser_mouse ${params.action} did not finish within ${timeoutMs} ms: the page is busy or stuck. Look at the tab.`,
            { tab: tabInfo(tab) },
          ),
      );
    } finally {
      watch.stop();
    }
    const result = { description: done.description, route };
    if (answered.length > 0) result.dialogs = answered;
    return { result, result_type: "object", tab: done.where?.url ? done.where : tabInfo(tab) };
  }

  return { handlers: { browser_mouse: browserMouse }, summaries: { browser_mouse: mouseSummary } };
}
