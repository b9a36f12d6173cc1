// The file tools, the worker's side: browser_upload hands the daemon's files to the tab's content
// script (content/files.js), which gives them to the file input through a DataTransfer, no debugger
// needed; browser_downloads lists the downloads the AI's calls started (tab/downloads.js).
//
// The bytes come from the daemon in base64 (it read them from the uploads folder) and go to the tab
// in chunks, each message well under Chrome's 64 MiB limit for one message.
import { CommandError } from "../link/errors.js";
import { pageError } from "../tab/ref-docs.js";
import { assertScriptable, deliver, tabInfo } from "../tab/tabs.js";

// 8 MiB of base64 (a multiple of 4, so that each chunk decodes alone) per message.
export const CHUNK_CHARS = 8 * 1024 * 1024;
const UPLOAD_MS = 15_000;
const LIMIT = { default: 20, min: 1, max: 100 };


const SUMMARIES = {
  browser_upload: (params, result) => {
    const names = (params?.files ?? []).map((f) => `'${f?.name}'`).join(", ");
    return result?.ok === true ? `uploaded ${names}` : `tried to upload ${names}`;
  },
  browser_downloads: () => "listed its downloads",
};

function checkFiles(files) {
  const good =
    Array.isArray(files) &&
    files.length > 0 &&
    files.every(
      (f) => typeof f?.name === "string" && typeof f.type === "string" && Number.isInteger(f.size) && typeof f.data === "string",
    );
  if (!good) throw new CommandError("invalid_request", "browser_upload needs files: [{name, type, size, data}].");
  return files;
}

export function createFilesTools({ chrome, tabs, ports, tabWatch, downloads, withTimeout }) {
  // Sends one message to the tab's content script; a refusal throws with the page's code.
  async function toTab(tab, message, cancelled) {
    const answer = await deliver(chrome, ports, tab, message, cancelled);
    if (!answer || typeof answer !== "object") {
      throw new CommandError("extension_error", "The tab gave no answer: the page navigated or closed. Retry once it has loaded.", {
        tab: tabInfo(tab),
      });
    }
    if (answer.ok !== true) throw pageError(tab, answer);
    return answer;
  }

  async function upload(params) {
    const files = checkFiles(params.files);
    if (typeof params.ref !== "string" || params.ref === "") {
      throw new CommandError("invalid_request", "browser_upload needs the ref of a file input, or of what opens a chooser.");
    }
    const tab = await tabs.resolve(params.tab_id);
    assertScriptable(tab);
    await tabWatch.guard(tab);
    const id = crypto.randomUUID();
    let expired = false;
    const send = async () => {
      const meta = [];
      for (const [index, file] of files.entries()) {
        let chunks = 0;
        for (let at = 0; at < file.data.length || chunks === 0; at += CHUNK_CHARS) {
          const data = file.data.slice(at, at + CHUNK_CHARS);
          await toTab(tab, { type: "upload_chunk", id, file: index, index: chunks++, data }, () => expired);
        }
        meta.push({ name: file.name, type: file.type, size: file.size, chunks });
      }
      return toTab(tab, { type: "upload", id, ref: params.ref, files: meta }, () => expired);
    };
    const ms = UPLOAD_MS + Math.ceil(files.reduce((n, f) => n + f.size, 0) / 10_000);
    const answer = await withTimeout(send(), ms, () => {
      expired = true;
      return new CommandError("execution_timeout", `The tab did not take the files within ${ms} ms: the page is busy or stuck.`, {
        tab: tabInfo(tab),
      });
    });
    const where = typeof answer.url === "string" ? { id: tab.id, url: answer.url, title: answer.title ?? "" } : tabInfo(tab);
    return { result: answer.result, result_type: "object", tab: where };
  }

  async function list(params) {
    const limit = params.limit ?? LIMIT.default;
    if (!Number.isInteger(limit) || limit < LIMIT.min || limit > LIMIT.max) {
      throw new CommandError("invalid_request", `limit must be an integer from ${LIMIT.min} to ${LIMIT.max}.`);
    }
    const items = await downloads.list(limit);
    return { result: { downloads: items, count: items.length }, result_type: "object", tab: null };
  }

  return { handlers: { browser_upload: upload, browser_downloads: list }, summaries: SUMMARIES };
}
