// A per-tab ring of log entries (console messages, network requests), kept in the worker.
//
// Each tab keeps its last `capacity` entries. An entry gets the tab's next sequence number, which
// is never reused, even after a clear, so that `since` keeps working across clears and evictions.
// A navigation starts a new page: entries carry the page they belong to, and a query covers the
// current page unless asked for every page still in the ring.
//
// The worker's memory is the store: what a tab logged is lost with the tab, and when Chrome
// restarts the worker (the extension reloaded, the browser restarted).

export const LOG_CAPACITY = 1000;
// Pages remembered per tab (their urls, and which document each was), for answers over all pages.
const PAGES_KEPT = 50;

export function createTabLog({ capacity = LOG_CAPACITY } = {}) {
  const tabs = new Map(); // tab id -> { entries, seq, evicted, pages, page }

  function tabOf(tabId) {
    let log = tabs.get(tabId);
    if (!log) {
      log = { entries: [], head: 0, seq: 0, evicted: 0, page: { id: 1, url: null }, pages: new Map(), docs: new Map() };
      log.pages.set(1, log.page);
      tabs.set(tabId, log);
    }
    return log;
  }

  // Live entries, oldest first. The ring is an array with a moving head: eviction is O(1), and
  // the array is compacted once half of it is dead.
  const live = (log) => (log.head === 0 ? log.entries : log.entries.slice(log.head));

  return {
    // The tab's page changed (a navigation committed in its top frame): later entries belong to it.
    newPage(tabId, url) {
      const log = tabOf(tabId);
      log.page = { id: log.page.id + 1, url: typeof url === "string" ? url : null };
      log.pages.set(log.page.id, log.page);
      if (log.pages.size > PAGES_KEPT) log.pages.delete(log.pages.keys().next().value);
      return log.page;
    },

    // The page of a document (Chrome's documentId): a document not seen before starts a new page.
    // Its first news may come from the navigation (webNavigation.onCommitted) or from a message
    // its content script sent, whichever Chrome delivers first.
    pageOf(tabId, documentId, url) {
      const log = tabOf(tabId);
      if (typeof documentId !== "string" || documentId === "") return log.page;
      const known = log.docs.get(documentId);
      if (known) return known;
      const page = this.newPage(tabId, url);
      log.docs.set(documentId, page);
      if (log.docs.size > PAGES_KEPT) log.docs.delete(log.docs.keys().next().value);
      return page;
    },

    // Entries lost before they reached the ring (a page's own queue overflowed): counted as evicted.
    lost(tabId, count) {
      if (Number.isInteger(count) && count > 0) tabOf(tabId).evicted += count;
    },

    // The page that entries added now belong to.
    page(tabId) {
      return tabOf(tabId).page;
    },

    // Adds one entry; returns it with its `seq` and `page`.
    add(tabId, fields, page = tabOf(tabId).page) {
      const log = tabOf(tabId);
      log.seq += 1;
      const entry = { ...fields, seq: log.seq, page: page.id };
      log.entries.push(entry);
      if (log.entries.length - log.head > capacity) {
        log.entries[log.head] = undefined;
        log.head += 1;
        log.evicted += 1;
        if (log.head * 2 > log.entries.length) {
          log.entries = log.entries.slice(log.head);
          log.head = 0;
        }
      }
      return entry;
    },

    // The entry with this seq, if it is still in the ring.
    find(tabId, seq, hidden = () => false) {
      const log = tabs.get(tabId);
      if (!log) return null;
      const entry = live(log).find((candidate) => candidate.seq === seq) ?? null;
      return entry && !hidden(log.pages.get(entry.page)?.url ?? "") ? entry : null;
    },

    // Entries that match, newest `limit` of them, oldest first, with the counts an answer states:
    // `matched` (before the limit), `total` (on the pages asked for, whatever matched), `evicted`
    // (dropped by the ring since the tab's log began or was cleared), `last_seq` (what `since`
    // should be next time), the current page, and the pages the entries shown belong to.
    // `hidden(url)`: a page whose entries are left out altogether (a ruled-out site's, link/site-rules.js).
    query(tabId, { since = 0, limit = 50, allPages = false, match = () => true, hidden = () => false } = {}) {
      const log = tabOf(tabId);
      const pageId = log.page.id;
      const picked = [];
      let total = 0;
      for (const entry of live(log)) {
        if (!allPages && entry.page !== pageId) continue;
        if (hidden(log.pages.get(entry.page)?.url ?? "")) continue;
        total += 1;
        if (entry.seq <= since) continue;
        if (match(entry)) picked.push(entry);
      }
      const shown = limit > 0 ? picked.slice(-limit) : [];
      const pages = [...new Set(shown.map((entry) => entry.page))].map((id) => ({
        id,
        url: log.pages.get(id)?.url ?? null,
      }));
      return {
        entries: shown,
        matched: picked.length,
        total,
        evicted: log.evicted,
        last_seq: log.seq,
        page: { ...log.page },
        pages,
      };
    },

    // Drops the tab's entries; the sequence goes on, the page stays.
    clear(tabId) {
      const log = tabOf(tabId);
      const cleared = log.entries.length - log.head;
      log.entries = [];
      log.head = 0;
      log.evicted = 0;
      return cleared;
    },

    // The tab is gone: forget it.
    drop(tabId) {
      tabs.delete(tabId);
    },
  };
}

// ---- What both log tools take and answer (browser_console_messages, browser_network_requests).
// The daemon validates the params first (log_params.py); this is the worker's own check.
export function logQueryParams(params, CommandError) {
  const int = (name, fallback, max) => {
    const value = params[name];
    if (value === undefined || value === null) return fallback;
    if (!Number.isInteger(value) || value < 0 || value > max) {
      throw new CommandError(
        "invalid_request",
        `${name} must be an integer from 0 to ${max}; got ${JSON.stringify(value)}.`,
      );
    }
    return value;
  };
  return {
    since: int("since", 0, Number.MAX_SAFE_INTEGER),
    limit: int("limit", 50, LOG_CAPACITY),
    allPages: params.all_pages === true,
    clear: params.clear === true,
  };
}

// The counts of an answer, beside its entries (named by the tool: `messages`, `requests`).
export function logAnswer(answer, cleared) {
  const { entries, ...counts } = answer;
  return { ...counts, shown: entries.length, ...(cleared === null ? {} : { cleared }) };
}
