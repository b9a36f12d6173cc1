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

export function createTabLog({ capacity = LOG_CAPACITY } = {}) {
  const tabs = new Map(); // tab id -> { entries, seq, evicted, pages, page }

  function tabOf(tabId) {
    let log = tabs.get(tabId);
    if (!log) {
      log = { entries: [], head: 0, seq: 0, evicted: 0, page: { id: 1, url: null } };
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
      return log.page;
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
    find(tabId, seq) {
      const log = tabs.get(tabId);
      if (!log) return null;
      return live(log).find((entry) => entry.seq === seq) ?? null;
    },

    // Entries that match, newest `limit` of them, oldest first, with the counts an answer states:
    // `matched` (before the limit), `evicted` (dropped by the ring since the tab's log began or was
    // cleared), `last_seq` (what `since` should be next time) and the current page.
    query(tabId, { since = 0, limit = 50, allPages = false, match = () => true } = {}) {
      const log = tabOf(tabId);
      const pageId = log.page.id;
      const picked = [];
      for (const entry of live(log)) {
        if (entry.seq <= since) continue;
        if (!allPages && entry.page !== pageId) continue;
        if (match(entry)) picked.push(entry);
      }
      const shown = limit > 0 ? picked.slice(-limit) : [];
      return { entries: shown, matched: picked.length, evicted: log.evicted, last_seq: log.seq, page: { ...log.page } };
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
