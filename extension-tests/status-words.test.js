// The popup's status line (popup/status-words.js): what can happen right now, in words, for every
// state a person can find the popup in.
import assert from "node:assert/strict";
import { test } from "node:test";

import { statusWords } from "../extension/popup/status-words.js";

const ON = { pilot: true, connected: true, port: 7878, reason: null, groupTabs: 0, handoffs: 0 };

const cases = [
  [
    "the pilot off says nothing runs, whatever else holds",
    { ...ON, pilot: false, debugger: true, exportCookies: true, sites: { mode: "never", sites: ["a.example"] } },
    { tone: "off", headline: "AI Web Pilot is off: nothing runs and nothing is read", notes: [] },
  ],
  [
    "the pilot off and no daemon: the link is a note, as it matters once the switch goes on",
    { ...ON, pilot: false, connected: false, reason: "daemon not reachable" },
    {
      tone: "off",
      headline: "AI Web Pilot is off: nothing runs and nothing is read",
      notes: ["Not connected to the tabpilot daemon on port 7878"],
    },
  ],
  [
    "on and connected, with tabs in the group",
    { ...ON, groupTabs: 2 },
    { tone: "on", headline: "AI may act in your tabs · 2 tabs in the tabpilot group", notes: [] },
  ],
  [
    "one tab in the group is one tab",
    { ...ON, groupTabs: 1 },
    { tone: "on", headline: "AI may act in your tabs · 1 tab in the tabpilot group", notes: [] },
  ],
  ["no group yet says no count", { ...ON, groupTabs: 0 }, { tone: "on", headline: "AI may act in your tabs", notes: [] }],
  ["no tab groups in this Chrome", { ...ON, groupTabs: null }, { tone: "on", headline: "AI may act in your tabs", notes: [] }],
  [
    "the managed browser is tabpilot's own, with no group shown",
    { ...ON, managed: true, groupTabs: 4, exportCookies: false },
    { tone: "on", headline: "AI may act in this browser, which tabpilot started for it", notes: [] },
  ],
  [
    "on, not connected: which port, and what to do",
    { ...ON, connected: false, port: 7878, reason: "daemon not reachable" },
    {
      tone: "bad",
      headline: "Not connected to the tabpilot daemon on port 7878",
      notes: ["Start it with tabpilot serve, or set its port under Connection"],
    },
  ],
  [
    "on, refused by the daemon: its reason",
    { ...ON, connected: false, port: 9000, reason: "unauthorized: the token is wrong" },
    {
      tone: "bad",
      headline: "Not connected to the tabpilot daemon on port 9000: unauthorized: the token is wrong",
      notes: ["Start it with tabpilot serve, or set its port under Connection"],
    },
  ],
  [
    "a handoff open comes first",
    { ...ON, groupTabs: 2, handoffs: 1 },
    { tone: "ask", headline: "The AI asks for your help", notes: ["AI may act in your tabs · 2 tabs in the tabpilot group"] },
  ],
  [
    "two handoffs open",
    { ...ON, handoffs: 2, connected: false },
    { tone: "ask", headline: "The AI asks for your help in 2 tabs", notes: ["Not connected to the tabpilot daemon on port 7878"] },
  ],
  [
    "the other switches and the sites, when on",
    { ...ON, debugger: true, exportCookies: true, sites: { mode: "never", sites: ["bank.example", "mail.example"] } },
    {
      tone: "on",
      headline: "AI may act in your tabs",
      notes: [
        "The debugger switch is on: strict pages run through Chrome's debugger",
        "The AI may save this browser's cookies",
        "Never on the 2 sites you listed",
      ],
    },
  ],
  [
    "only the listed sites, one of them",
    { ...ON, sites: { mode: "only", sites: ["docs.example"] } },
    { tone: "on", headline: "AI may act in your tabs", notes: ["Only on the site you listed"] },
  ],
  [
    "only the listed sites, none listed",
    { ...ON, sites: { mode: "only", sites: [] } },
    { tone: "on", headline: "AI may act in your tabs", notes: ["Only on the sites you list: none yet, so nowhere"] },
  ],
  [
    "the worker not answering says so",
    { answering: false, error: "Could not establish connection" },
    { tone: "bad", headline: "The extension's background is not answering (Could not establish connection)", notes: [] },
  ],
];

for (const [name, facts, expected] of cases) {
  test(name, () => assert.deepEqual(statusWords(facts), expected));
}
