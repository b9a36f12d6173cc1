// browser_fill_form, the worker's side (docs/protocol.md, "Filling a form"): the fields go to the
// tab's content script in one message (content/form.js), which fills them with browser_act's own
// typing, checking and option picking, then clicks the submit. The answer says, as browser_act's
// does, what the submit set going (page-act.js's runner: a navigation, new tabs, dialogs). Fields
// in several frames (a card number, its expiry and its code each in a payment provider's iframe)
// go to each frame in turn, in one message per frame, and the submit after all of them.
import { CommandError } from "../link/errors.js";
import { pageError } from "../tab/ref-docs.js";
import { frameOfRefs } from "../tab/ref-frames.js";
import { createActRunner } from "./page-act.js";

// As the daemon's model (server/tabpilot/tools/form.py).
export const MAX_FIELDS = 100;
const MAX_REF_CHARS = 64;
const MAX_OPTIONS = 100;
// How long a combobox may take to show its options, or to show the one chosen, at most.
const LIST_WAIT_MS = 2000;

const invalid = (message) => new CommandError("invalid_request", message);

// Refuses what the daemon's model refuses, for callers that reach the extension otherwise.
export function checkFormParams(p) {
  const { fields, submit } = p ?? {};
  if (!Array.isArray(fields) || fields.length === 0 || fields.length > MAX_FIELDS) {
    throw invalid(`browser_fill_form needs fields: a list of 1 to ${MAX_FIELDS} {ref, value} objects.`);
  }
  fields.forEach((field, i) => {
    const { ref, value } = field ?? {};
    if (typeof ref !== "string" || ref === "" || ref.length > MAX_REF_CHARS) {
      throw invalid(`fields[${i}].ref must be a ref from browser_snapshot such as "e12".`);
    }
    const list = Array.isArray(value) && value.length > 0 && value.length <= MAX_OPTIONS && value.every((v) => typeof v === "string");
    if (typeof value !== "string" && typeof value !== "boolean" && !list) {
      throw invalid(`fields[${i}].value must be a string, a boolean, or a list of option labels or values.`);
    }
  });
  if (submit != null && (typeof submit !== "string" || submit === "" || submit.length > MAX_REF_CHARS)) {
    throw invalid('submit must be a ref from browser_snapshot such as "e12".');
  }
}

// A field's error as the answer gives it: a ref of an earlier page reads stale_ref (ref-docs.js).
function withError(tab, entry) {
  if (!entry.error) return entry;
  const known = pageError(tab, { error: entry.error });
  return { ...entry, error: { code: known.code, message: known.message } };
}

// The popup's Recent activity: how many fields, and whether the form was sent. No value is shown.
export function fillSummary(params, result) {
  const fields = result?.result?.fields;
  if (result?.ok !== true || !Array.isArray(fields)) return "tried to fill a form";
  const filled = fields.filter((f) => f.ok).length;
  let text = `filled ${filled} of ${fields.length} field${fields.length === 1 ? "" : "s"}`;
  if (result.result.submit?.clicked) text += " and submitted";
  return text;
}

// The fields by the frame their ref came from, in the order each frame first appears:
// [[frameId, [index of the field in `fields`]]]. A ref no frame gave out goes to the top frame,
// whose answer says so (ref_not_found, stale_ref).
async function fieldsByFrame({ chrome, ports }, tab, fields) {
  const groups = new Map();
  for (const [index, { ref }] of fields.entries()) {
    const frameId = await frameOfRefs(chrome, ports, tab, [ref]);
    groups.set(frameId, [...(groups.get(frameId) ?? []), index]);
  }
  return [...groups];
}

export function createFormTools(deps) {
  const { run, toPage, followUp } = createActRunner(deps);

  // Each frame's fields in one message, then the submit alone in its frame, clicked only when
  // every field in every frame was filled (as content/form.js does within one frame).
  async function acrossFrames(job, message, groups) {
    const fields = [];
    for (const [, indexes] of groups) {
      const part = { ...message, fields: indexes.map((i) => message.fields[i]), submit: null };
      const answer = await toPage(job, part);
      (answer.fields ?? []).forEach((field, i) => (fields[indexes[i]] = field));
    }
    if (typeof message.submit !== "string") return { fields, navigating: false };
    const failed = fields.filter((f) => !f?.ok).length;
    if (failed > 0) {
      const reason = `${failed} of ${fields.length} field${fields.length === 1 ? "" : "s"} failed`;
      return { fields, navigating: false, submit: { ref: message.submit, clicked: false, reason } };
    }
    return { ...(await toPage(job, { ...message, fields: [] })), fields };
  }

  async function fillForm(params) {
    checkFormParams(params);
    const message = {
      type: "fill_form",
      fields: params.fields.map(({ ref, value }) => ({ ref, value })),
      submit: params.submit ?? null,
      // A few slow comboboxes must not use up the whole call's time, which ends in one timeout.
      wait_ms: Math.min(LIST_WAIT_MS, Math.floor((Number.isInteger(params.timeout_ms) ? params.timeout_ms : 10_000) / 4)),
    };
    const work = async (job) => {
      const groups = await fieldsByFrame(deps, job.tab, message.fields);
      const submitFrame = message.submit === null ? null : await frameOfRefs(deps.chrome, deps.ports, job.tab, [message.submit]);
      const apart = groups.length > 1 || (submitFrame !== null && submitFrame !== groups[0][0]);
      const answer = apart ? await acrossFrames(job, message, groups) : await toPage(job, message);
      await followUp(job, answer);
      const own = { fields: (answer.fields ?? []).map((field) => withError(job.tab, field)) };
      if (answer.submit) own.submit = withError(job.tab, answer.submit);
      return own;
    };
    return run(params, { label: "browser_fill_form", route: "dom", work, gone: "Filled the form" });
  }

  return { handlers: { browser_fill_form: fillForm }, summaries: { browser_fill_form: fillSummary } };
}
