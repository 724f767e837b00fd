/**
 * IndexedDbHistoryStore in a real browser (headless Chromium): a chat-UI page (examples/web/storage-page.ts) runs
 * the demo agent's turns 1 and 2 against the local example agent and saves the thread in IndexedDB;
 * the page is reloaded, loads the thread, and continues with turn 3 — the agent checks that every
 * encrypted value it issued came back byte for byte. A corrupt record makes the reloaded page fail
 * with the store's clear error, never with half a conversation.
 */

import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ISSUED, demoAgent } from "../../examples/demo-agent";
import { bundlePage } from "../../examples/web/serve";
import { mockAgentServer, returnedValues, type MockAgentServer } from "../../src/testing";
import { BROWSER_TEST_REQUIRED, CHROMIUM_FLAGS, HOW_TO_RUN, findChromium } from "./chromium";

const executablePath = findChromium();

interface StorageResult {
  readonly loaded: string | null;
  readonly saved?: string;
  readonly error?: string;
}

/** Loads (or reloads) the page and waits for it to finish: the result it left. */
async function visit(page: Page, how: "goto" | "reload", url: string): Promise<StorageResult> {
  if (how === "goto") await page.goto(url);
  else await page.reload();
  // A fresh document each time: its body gets data-state when the page script is done.
  await page.waitForSelector("body[data-state]", { state: "attached", timeout: 30_000 });
  return page.evaluate<StorageResult>("window.storageResult");
}

/** What the tests opened, closed after them. */
const opened: Array<{ server: MockAgentServer; browser?: Browser }> = [];
afterAll(async () => {
  for (const { server, browser } of opened.splice(0)) {
    await browser?.close();
    await server.close();
  }
});

/** The storage page served beside the demo agent, and a browser to open it in (closed after the tests). */
async function served(): Promise<{ server: MockAgentServer; browser: Browser }> {
  if (executablePath === undefined) throw new Error(`AGUI_BROWSER_TEST=require but no Chromium found: ${HOW_TO_RUN}`);
  const { script } = await bundlePage(join(__dirname, "../../examples/web/storage-page.ts"));
  const server = await mockAgentServer(demoAgent, {
    pages: {
      "/": { contentType: "text/html; charset=utf-8", body: () => PAGE },
      "/page.js": { contentType: "text/javascript; charset=utf-8", body: () => script },
    },
  });
  const served: (typeof opened)[number] = { server };
  opened.push(served);
  served.browser = await chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
  return { server, browser: served.browser };
}

describe("IndexedDbHistoryStore in headless Chromium", () => {
  const run = executablePath !== undefined || BROWSER_TEST_REQUIRED ? it : it.skip;

  run(
    "R-REASON-17 D-ISSUER: the thread saved in IndexedDB comes back after a reload with every value byte-identical, and the conversation continues from it",
    async () => {
      const { server, browser } = await served();
      const url = new URL("/", server.url).href;
      const page = await browser.newPage();
      const consoleErrors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      page.on("pageerror", (error) => consoleErrors.push(error.message));

      // First visit: nothing saved yet; turns 1 and 2 run and the thread is saved.
      const first = await visit(page, "goto", url);
      expect(first).toEqual({ loaded: null, saved: expect.any(String) });
      const savedFirst = JSON.parse(first.saved!) as { messages: Array<{ id: string; encryptedValue?: string }> };
      expect(server.requests).toHaveLength(2);
      // The record holds both values the agent issued in turn 2, exactly.
      const [onMessage, onToolCall] = ISSUED;
      expect(savedFirst.messages.find((m) => m.id === onMessage.entityId)?.encryptedValue).toBe(
        onMessage.encryptedValue,
      );
      expect(first.saved).toContain(JSON.stringify(onToolCall.encryptedValue));

      // Reload: the page loads the thread from IndexedDB — the same stored text, byte for byte — and
      // continues with turn 3, whose request carries both values back unchanged.
      const second = await visit(page, "reload", url);
      expect(second.error).toBeUndefined();
      expect(second.loaded).toBe(first.saved);
      expect(server.requests).toHaveLength(3);
      expect(returnedValues(server.requests[2], ISSUED)).toEqual(
        ISSUED.map((v) => expect.objectContaining({ entityId: v.entityId, identical: true })),
      );
      expect(second.saved).toContain("With my earlier reasoning restored");
      const savedSecond = JSON.parse(second.saved!) as typeof savedFirst;
      expect(savedSecond.messages.slice(0, savedFirst.messages.length)).toEqual(savedFirst.messages);

      // A corrupt record (cut short, as a crash mid-write by other code might leave it): the reloaded
      // page fails with the store's error naming the thread, and runs no turn on half a history.
      await page.evaluate(CORRUPT_THE_RECORD);
      const third = await visit(page, "reload", url);
      expect(third.loaded).toBeNull();
      expect(third.error).toMatch(
        /^agui-reasoning: IndexedDbHistoryStore: the record of thread "thread-demo" is corrupt: \/ is not valid JSON text \(\d+ characters\)$/,
      );
      expect(server.requests).toHaveLength(3);
      expect(consoleErrors).toEqual([]);
    },
    90_000,
  );

  run(
    "R-REASON-17: the app's database at its own version — without the object store a clear TypeError, with it (made in the app's upgrade) a working store",
    async () => {
      const { server, browser } = await served();
      const page = await browser.newPage();
      await visit(page, "goto", new URL("/", server.url).href);
      const outcome = await page.evaluate<{ without: string; withStore: string | null }>(APP_DATABASES);
      expect(outcome.without).toBe(
        'TypeError: agui-reasoning: IndexedDbHistoryStore: database "my-chat" (version 3) has no object store "histories": ' +
          'the store creates it only in a database it creates; give it a database of its own (options.database, default "agui-reasoning"), ' +
          "or create the object store in your database's upgrade",
      );
      expect(JSON.parse(outcome.withStore!)).toMatchObject({ messages: [{ id: "u1", role: "user", content: "hi" }] });
    },
    90_000,
  );
});

/**
 * Runs in the page: two databases an app made at version 3 — one with only its own object store, one
 * whose upgrade also made "histories" — each given to the store; what each gave.
 */
const APP_DATABASES = `(async () => {
  const made = (name, stores) => new Promise((resolve, reject) => {
    const open = indexedDB.open(name, 3);
    open.onupgradeneeded = () => stores.forEach((s) => open.result.createObjectStore(s));
    open.onsuccess = () => { open.result.close(); resolve(undefined); };
    open.onerror = () => reject(open.error);
  });
  await made("my-chat", ["messages"]);
  await made("shared", ["messages", "histories"]);
  const Store = window.IndexedDbHistoryStore;
  const without = await new Store({ database: "my-chat" }).load("t").then(() => "loaded", (e) => e.name + ": " + e.message);
  const store = new Store({ database: "shared" });
  const history = { messages: [{ id: "u1", role: "user", content: "hi" }], incomplete: [], issuers: [], durations: [] };
  await store.save("t", history);
  const loaded = await store.load("t");
  await store.close();
  return { without, withStore: loaded === undefined ? null : JSON.stringify(loaded) };
})()`;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>IndexedDbHistoryStore</title></head><body><script type="module" src="/page.js"></script></body></html>`;

/** Runs in the page: rewrites the thread's record with its first half, straight through the IndexedDB API. */
const CORRUPT_THE_RECORD = `new Promise((resolve, reject) => {
  const open = indexedDB.open("agui-reasoning", 1);
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const tx = open.result.transaction("histories", "readwrite");
    const histories = tx.objectStore("histories");
    const get = histories.get("thread-demo");
    get.onsuccess = () => histories.put(get.result.slice(0, get.result.length / 2), "thread-demo");
    tx.oncomplete = () => { open.result.close(); resolve(undefined); };
    tx.onerror = () => reject(tx.error);
  };
})`;
