// The popup's status line: what can happen in this browser right now, in words a person reads at a
// glance. Pure, so that node --test checks every state; popup.js gathers the facts and shows the
// answer. The headline is the one thing that matters most now; the notes say what else holds.
//
// facts: {
//   answering: false when the service worker did not answer get_status (error: its words),
//   pilot, connected, port, reason (the worker's last_error), managed (a browser tabpilot started),
//   groupTabs (tabs in the "tabpilot" tab group, or null), handoffs (open browser_ask_human
//   requests), debugger, exportCookies (the two other switches), sites ({mode, sites} of the person)
// }
// Answers {tone, headline, notes}: tone is "ask", "bad", "off" or "on", for the colour.

const NOT_REACHABLE = "daemon not reachable";

export function statusWords(facts) {
  if (facts.answering === false) {
    const why = facts.error ? ` (${facts.error})` : "";
    return { tone: "bad", headline: `The extension's background is not answering${why}`, notes: [] };
  }
  const notes = [];
  const link = linkWords(facts);
  if (!facts.pilot) {
    if (!facts.connected) notes.push(link);
    if ((facts.handoffs ?? 0) > 0) notes.push(handoffWords(facts.handoffs));
    return { tone: "off", headline: "AI Web Pilot is off: nothing runs and nothing is read", notes };
  }
  const acting = actingWords(facts);
  if ((facts.handoffs ?? 0) > 0) {
    notes.push(facts.connected ? acting : link, ...switchNotes(facts));
    return { tone: "ask", headline: handoffWords(facts.handoffs), notes };
  }
  if (!facts.connected) {
    notes.push("Start it with tabpilot serve, or set its port under Connection");
    return { tone: "bad", headline: link, notes: [...notes, ...switchNotes(facts)] };
  }
  return { tone: "on", headline: acting, notes: switchNotes(facts) };
}

// "AI may act in your tabs · 2 tabs in the tabpilot group".
function actingWords({ managed, groupTabs }) {
  const where = managed ? "AI may act in this browser, which tabpilot started for it" : "AI may act in your tabs";
  if (managed || !Number.isInteger(groupTabs) || groupTabs < 1) return where;
  return `${where} · ${count(groupTabs, "tab")} in the tabpilot group`;
}

function linkWords({ port, reason }) {
  const base = `Not connected to the tabpilot daemon on port ${port ?? "?"}`;
  return reason && reason !== NOT_REACHABLE ? `${base}: ${reason}` : base;
}

function handoffWords(n) {
  return n === 1 ? "The AI asks for your help" : `The AI asks for your help in ${n} tabs`;
}

// The other switches matter only while the pilot is on: they widen what the AI may do.
function switchNotes({ debugger: debuggerOn, exportCookies, sites, managed }) {
  const notes = [];
  if (debuggerOn) notes.push("The debugger switch is on: strict pages run through Chrome's debugger");
  if (exportCookies && !managed) notes.push("The AI may save this browser's cookies");
  const listed = Array.isArray(sites?.sites) ? sites.sites.length : 0;
  if (sites?.mode === "only") {
    notes.push(listed ? `Only on ${theSites(listed)} you listed` : "Only on the sites you list: none yet, so nowhere");
  } else if (listed) {
    notes.push(`Never on ${theSites(listed)} you listed`);
  }
  return notes;
}

const theSites = (n) => (n === 1 ? "the site" : `the ${n} sites`);
const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;
