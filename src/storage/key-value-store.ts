import { optionsOf } from "../core/arguments";
import type { HistoryStore, HistoryStoreCapabilities } from "./history-store";
import { checkThreadId, historyOfRecord, recordOf } from "./stored-record";
import type { ReasoningHistory } from "../history/types";

/**
 * Any store of strings by key: `localStorage` (`{ get: (k) => localStorage.getItem(k), set: (k, v) =>
 * localStorage.setItem(k, v) }`), a Redis client (`get`/`set` as they are), a SQL table with a key
 * and a text column. `get` gives `null` or `undefined` for a key never set; both may be async.
 */
export interface StringStore {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): unknown;
}

export interface KeyValueHistoryStoreOptions {
  /** Put before each thread id to make its key (default `"agui-reasoning/history/"`). */
  readonly keyPrefix?: string;
  /**
   * Whether the strings may hold encrypted values (default true). Say `false` for a store shared with
   * parties that must not see them (R-REASON-26): save through `saveHistory`, which strips them with a
   * `VALUE_NOT_STORED` warning (R-REASON-19).
   */
  readonly encryptedValues?: boolean;
}

const STORE = "KeyValueHistoryStore";

/**
 * A `HistoryStore` over any `StringStore`: one record per thread (stored-record.ts: the exact text
 * `serializeHistory` writes, read all or nothing), written with one `set`, so a thread holds the old
 * record or the new one, never a mix. The saves of one thread are written in the order they were called,
 * and a load reads after every save of its thread called before it.
 */
export class KeyValueHistoryStore implements HistoryStore {
  readonly capabilities: HistoryStoreCapabilities;
  private readonly keyPrefix: string;
  // The last write of each key still in flight: the saves of a thread reach `set` in call order, so a
  // slow earlier write (another connection of a pool) cannot land over a later one.
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly strings: StringStore,
    options: KeyValueHistoryStoreOptions = {},
  ) {
    if (typeof strings?.get !== "function" || typeof strings.set !== "function")
      throw new TypeError(`agui-reasoning: ${STORE} needs a store with get(key) and set(key, value) functions`);
    options = optionsOf(options, STORE);
    this.keyPrefix = options.keyPrefix ?? "agui-reasoning/history/";
    this.capabilities = { encryptedValues: options.encryptedValues ?? true };
  }

  /** The key a thread's record is kept under. */
  keyOf(threadId: string): string {
    checkThreadId(STORE, threadId);
    return this.keyPrefix + threadId;
  }

  async save(threadId: string, history: ReasoningHistory): Promise<void> {
    const key = this.keyOf(threadId);
    const record = recordOf(STORE, this.capabilities, history);
    const before = this.writing.get(key) ?? Promise.resolve();
    // A failed earlier save does not stop this one: it was that save's caller's to handle.
    const write = before.then(
      () => this.strings.set(key, record),
      () => this.strings.set(key, record),
    );
    this.writing.set(key, write);
    try {
      await write;
    } finally {
      if (this.writing.get(key) === write) this.writing.delete(key);
    }
  }

  async load(threadId: string): Promise<ReasoningHistory | undefined> {
    const key = this.keyOf(threadId);
    // A load sees the saves called before it, as the reference store's does (D-PATHS): a UI saving
    // without awaiting then reading back must not get the older record. A failed save was its caller's.
    await this.writing.get(key)?.catch(() => undefined);
    const record = await this.strings.get(key);
    return record === null || record === undefined ? undefined : historyOfRecord(STORE, threadId, record);
  }
}
