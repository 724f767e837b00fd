/**
 * A chat UI that keeps its thread in the browser's IndexedDB with `IndexedDbHistoryStore` (from
 * `agui-reasoning/storage`); the page of the IndexedDB test (test/browser/storage.test.ts). On a first
 * visit it runs the demo agent's turns 1 and 2 and saves the history; after a reload it loads the
 * saved history, runs turn 3 from it (the encrypted values go back to the agent) and saves again.
 * What it did is left on `window.storageResult` and `body[data-state]` for the test to read.
 */
import { HttpAgent } from "@ag-ui/client";
import type { Message } from "@ag-ui/core";
import {
  agentEvents,
  emptyHistory,
  reasoningPipeline,
  serializeHistory,
  toRunInputMessages,
  type ReasoningHistory,
} from "../../src";
import { IndexedDbHistoryStore } from "../../src/storage";
import { DEMO_TURNS } from "../demo-turns";

const AGENT_URL = new URL("/agent", location.href).href;
const THREAD = "thread-demo";

async function runTurn(history: ReasoningHistory, n: number): Promise<ReasoningHistory> {
  const user: Message = { id: `user-${n}`, role: "user", content: DEMO_TURNS[n - 1]!.question };
  const asked: ReasoningHistory = { ...history, messages: [...history.messages, user] };
  const input = {
    threadId: THREAD,
    runId: `run-${n}`,
    messages: toRunInputMessages(asked, { producer: AGENT_URL }),
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const pipeline = reasoningPipeline(agentEvents(new HttpAgent({ url: AGENT_URL }), input), {
    producer: AGENT_URL,
    initialHistory: asked,
    onWarning: () => {},
  });
  await new Promise<void>((resolve, reject) => pipeline.events$.subscribe({ error: reject, complete: resolve }));
  return pipeline.history;
}

interface StorageResult {
  /** The stored text of what `load` gave on this visit (`null`: nothing saved yet). */
  readonly loaded: string | null;
  /** The stored text of what this visit saved. */
  readonly saved?: string;
  readonly error?: string;
}

async function main(): Promise<StorageResult> {
  const store = new IndexedDbHistoryStore();
  const saved = await store.load(THREAD);
  let history = saved ?? emptyHistory();
  for (let n = saved === undefined ? 1 : 3; n <= (saved === undefined ? 2 : 3); n++)
    history = await runTurn(history, n);
  await store.save(THREAD, history);
  await store.close();
  return { loaded: saved === undefined ? null : serializeHistory(saved), saved: serializeHistory(history) };
}

// The store's class, for the test's checks of databases an app made itself.
(window as unknown as { IndexedDbHistoryStore: typeof IndexedDbHistoryStore }).IndexedDbHistoryStore =
  IndexedDbHistoryStore;

main().then(
  (result) => {
    (window as unknown as { storageResult: StorageResult }).storageResult = result;
    document.body.dataset.state = result.loaded === null ? "saved" : "continued";
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    (window as unknown as { storageResult: StorageResult }).storageResult = { loaded: null, error: message };
    document.body.dataset.state = "failed";
  },
);
