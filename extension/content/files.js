// browser_upload in the page (worker/tools/files.js sends the files here in chunks). Files are
// built here as File objects with their real name, type and bytes, and given to the file input
// through a DataTransfer, then `input` and `change` are fired as Chrome fires them after its
// chooser: no debugger, no chooser shown.
//
// A ref that is not a file input is clicked while an upload is armed: page/files.js (the page's
// world) then answers the page's own input.click() / showPicker() / showOpenFilePicker() with the
// files instead of opening a chooser, and a click that reaches a file input (its label, say) is
// answered here. Nothing of the kind within CHOOSER_MS: not_a_file_input.
(() => {
  "use strict";

  const CHOOSER_MS = 1000;
  // Chunks of uploads whose last message has not come: dropped after a minute (a worker that gave up).
  const STALE_MS = 60_000;
  const uploads = new Map(); // upload id -> {at, files: [[chunk, ...], ...]}

  const fail = (code, message, data) => Object.assign(new Error(message), { code, ...(data ? { data } : {}) });
  const refs = () => globalThis.__tabpilotRefs;

  const decode =
    typeof Uint8Array.fromBase64 === "function"
      ? (text) => Uint8Array.fromBase64(text)
      : (text) => {
          const binary = atob(text);
          const bytes = new Uint8Array(binary.length);
          for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
          return bytes;
        };

  function chunk(m) {
    const now = Date.now();
    for (const [id, u] of uploads) if (now - u.at > STALE_MS) uploads.delete(id);
    const upload = uploads.get(m.id) ?? { at: now, files: [] };
    uploads.set(m.id, upload);
    (upload.files[m.file] ??= [])[m.index] = decode(String(m.data));
    return { received: m.index };
  }

  function filesOf(m) {
    const upload = uploads.get(m.id);
    uploads.delete(m.id);
    return m.files.map((meta, i) => {
      const parts = upload?.files[i] ?? [];
      const file = new File(parts, meta.name, { type: meta.type, lastModified: Date.now() });
      if (parts.length !== meta.chunks || file.size !== meta.size) {
        throw fail("extension_error", `The bytes of "${meta.name}" did not all arrive (${file.size} of ${meta.size}); retry.`);
      }
      return file;
    });
  }

  const isFileInput = (el) => el?.localName === "input" && String(el.type).toLowerCase() === "file";

  // The file input an element stands for: itself, or the control of a label.
  function fileInputOf(el) {
    if (isFileInput(el)) return el;
    if (el?.localName === "label" && isFileInput(el.control)) return el.control;
    return null;
  }

  // Whether a file matches an accept list (".pdf", "image/*", "text/plain"), as the chooser's filter.
  function accepts(accept, file) {
    const wanted = String(accept ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    if (wanted.length === 0) return true;
    const name = file.name.toLowerCase();
    const type = file.type.toLowerCase();
    return wanted.some((w) =>
      w.startsWith(".") ? name.endsWith(w) : w.endsWith("/*") ? type.startsWith(w.slice(0, -1)) : type === w,
    );
  }

  // The answer: what got which files. A file that the input's accept would have filtered out is
  // given all the same (a chooser lets a person pick "All files" too) and named, for the page to judge.
  function answer(files, { what, via, accept, ref }) {
    const list = files.map((f) => ({ name: f.name, size: f.size, type: f.type }));
    const names = files.map((f) => `"${f.name}" (${f.size.toLocaleString("en-US")} bytes${f.type ? `, ${f.type}` : ""})`);
    const result = {
      description: `Uploaded ${names.join(", ")} to ${what}${ref ? ` (${ref})` : ""}`,
      route: "dom",
      via,
      files: list,
    };
    const refused = files.filter((f) => !accepts(accept, f)).map((f) => f.name);
    if (refused.length > 0) Object.assign(result, { accept, not_accepted: refused });
    return result;
  }

  function tooMany(what, count) {
    return fail("invalid_request", `${what} takes one file (no \`multiple\`); ${count} were given. Upload one.`);
  }

  function give(input, files) {
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    input.files = transfer.files;
    // What Chrome fires after its chooser: input (composed), then change.
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function direct(input, files, what, ref) {
    if (input.disabled) throw fail("element_not_interactable", `${what} is disabled.`, { reason: "disabled" });
    if (files.length > 1 && !input.multiple) throw tooMany(what, files.length);
    give(input, files);
    return answer(files, { what, via: "input", accept: input.accept, ref });
  }

  // Clicks the element with the upload armed, and waits for the page to ask for files.
  async function viaChooser(el, files, ref) {
    const token = crypto.randomUUID();
    const what = refs().describe(el);
    let settle;
    const chosen = new Promise((resolve) => (settle = resolve));
    // The page world's report: it gave the files to an input or a picker, or refused them.
    const onReport = (event) => {
      try {
        settle({ report: JSON.parse(event.detail), target: event.composedPath()[0] });
      } catch {}
    };
    // A click that reaches a file input (through its label, say) would open the chooser: answered here.
    const onClick = (event) => {
      const target = event.composedPath()[0];
      if (!isFileInput(target)) return;
      event.preventDefault();
      settle({ input: target });
    };
    document.addEventListener("tabpilot:files-chosen:" + token, onReport, true);
    window.addEventListener("click", onClick, true);
    // The page world takes the files from a carrier input, shown to it for one synchronous event.
    const carrier = document.createElement("input");
    carrier.type = "file";
    carrier.multiple = true;
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    carrier.files = transfer.files;
    carrier.hidden = true;
    (document.body ?? document.documentElement).append(carrier);
    carrier.dispatchEvent(new CustomEvent("tabpilot:files-arm", { bubbles: true, detail: JSON.stringify({ token, ms: CHOOSER_MS * 2 }) }));
    carrier.remove();
    let timer;
    try {
      await globalThis.__tabpilotAct.run({ kind: "click", ref });
      const late = new Promise((resolve) => (timer = setTimeout(() => resolve(null), CHOOSER_MS)));
      const got = await Promise.race([chosen, late]);
      if (!got) {
        throw fail(
          "not_a_file_input",
          `${what} (${ref}) is not a file input, and clicking it opened no file chooser within ${CHOOSER_MS} ms. ` +
            "Take a browser_snapshot and pass the file input's ref, or the button that opens the chooser.",
          { element: what },
        );
      }
      if (got.input) return direct(got.input, files, refs().describe(got.input), null);
      const report = got.report;
      if (report.error === "multiple") throw tooMany(`The ${report.via === "picker" ? "file picker" : "file input"} that ${what} opens`, files.length);
      const input = isFileInput(got.target) ? refs().describe(got.target) : "a file input";
      const target = report.via === "picker" ? "the file picker" : input;
      return answer(files, { what: `${target} opened by ${what}`, via: report.via, accept: report.accept, ref });
    } finally {
      clearTimeout(timer);
      document.removeEventListener("tabpilot:files-chosen:" + token, onReport, true);
      window.removeEventListener("click", onClick, true);
      document.dispatchEvent(new CustomEvent("tabpilot:files-disarm", { detail: token }));
    }
  }

  async function upload(m) {
    const files = filesOf(m);
    await refs()
      .ready()
      .catch(() => {});
    const el = refs().resolveRef(m.ref);
    const what = refs().describe(el);
    const input = fileInputOf(el);
    if (input) return direct(input, files, input === el ? what : refs().describe(input), m.ref);
    return viaChooser(el, files, m.ref);
  }

  const tools = (globalThis.__tabpilotContentTools ??= {});
  tools.upload_chunk = chunk;
  tools.upload = upload;
})();
