// The popup's handoff card (browser_ask_human, worker/tools/ask-human.js, docs/handoff.md): what
// the AI asks the person to do, in which tab, with Done, Decline and an optional reply line.
//
// The popup closes whenever it loses focus, so the requests live in the worker, which mirrors them
// to chrome.storage.session ("handoffs"); this page reads them on each open and follows their
// changes, so a request withdrawn at its timeout leaves the card at once. The answer goes to the
// worker as a runtime message, which only the extension's own pages may send. Messages, titles and
// urls come from agents and pages: they are only ever set as text.

const KEY = "handoffs";
const MAX_REPLY_CHARS = 1000;

const section = document.getElementById("handoff");
const list = document.getElementById("handoff-list");

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardOf(request) {
  const card = element("li", "handoff-card");
  card.dataset.id = request.id;
  const form = element("form", "handoff-form");
  form.setAttribute("aria-label", "Answer the AI's request");
  const message = element("p", "handoff-message", request.message);
  message.id = `handoff-message-${request.id}`;
  const where = element("button", "handoff-tab link", request.title || request.url || `tab ${request.tab_id}`);
  where.type = "button";
  where.title = `Show the tab: ${request.url}`;
  where.addEventListener("click", () => {
    Promise.resolve(chrome.tabs.update(request.tab_id, { active: true })).catch(() => {});
  });
  const url = element("p", "handoff-url hint", request.url);
  const label = element("label", "handoff-label", "Reply (optional)");
  const reply = element("input", "handoff-reply");
  reply.type = "text";
  reply.maxLength = MAX_REPLY_CHARS;
  reply.autocomplete = "off";
  reply.id = `handoff-reply-${request.id}`;
  reply.setAttribute("aria-describedby", message.id);
  label.htmlFor = reply.id;
  const done = element("button", "handoff-done", "Done");
  done.type = "submit";
  const decline = element("button", "handoff-decline", "Decline");
  decline.type = "button";
  const status = element("p", "handoff-status hint");
  status.setAttribute("role", "status");
  const buttons = element("div", "handoff-buttons");
  buttons.append(done, decline);
  form.append(message, where, url, label, reply, buttons, status);
  card.append(form);

  async function answer(said) {
    done.disabled = decline.disabled = true;
    let answered;
    try {
      answered = await chrome.runtime.sendMessage({ type: "handoff_answer", id: request.id, answer: said, reply: reply.value });
    } catch (err) {
      answered = { error: String(err?.message ?? err) };
    }
    if (answered?.answered) {
      card.remove();
      section.hidden = list.children.length === 0;
      return;
    }
    status.textContent = answered?.error ?? "The extension did not take the answer.";
    done.disabled = decline.disabled = false;
  }
  // Enter in the reply line means Done.
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    answer("done");
  });
  decline.addEventListener("click", () => answer("declined"));
  return card;
}

// Cards are keyed by request, so a reply being typed survives an update of another request.
function render(requests) {
  const open = Array.isArray(requests) ? requests.filter((r) => typeof r?.id === "string") : [];
  const ids = new Set(open.map((r) => r.id));
  for (const card of [...list.children]) if (!ids.has(card.dataset.id)) card.remove();
  const shown = new Set([...list.children].map((card) => card.dataset.id));
  const fresh = open.filter((r) => !shown.has(r.id));
  for (const request of fresh) list.append(cardOf(request));
  section.hidden = open.length === 0;
  // The person opened the popup to answer: the first reply line takes the keyboard.
  if (fresh.length > 0 && !list.contains(document.activeElement)) list.querySelector(".handoff-reply")?.focus();
}

chrome.storage.session.onChanged.addListener((changes) => {
  if (KEY in changes) render(changes[KEY].newValue);
});
chrome.storage.session.get(KEY).then(
  (stored) => render(stored?.[KEY]),
  (err) => console.warn("tabpilot: could not read the open requests", err),
);
