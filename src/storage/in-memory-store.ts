import type { HistoryStore, HistoryStoreCapabilities } from "./history-store";
import { checkThreadId, historyOfRecord, recordOf } from "./stored-record";
import type { ReasoningHistory } from "../history/types";
import { optionsOf } from "../core/arguments";

export interface InMemoryHistoryStoreOptions {
  /** Whether the store keeps encrypted values (default true). `false` models a store that cannot. */
  readonly encryptedValues?: boolean;
}

const STORE = "InMemoryHistoryStore";

/**
 * The reference `HistoryStore`: each thread kept as the text `serializeHistory` makes, so what `load`
 * returns went through the stored form as a real store's would (stored-record.ts), sharing nothing
 * with what was saved. With `encryptedValues: false` save through `saveHistory`, which strips and warns.
 */
export class InMemoryHistoryStore implements HistoryStore {
  readonly capabilities: HistoryStoreCapabilities;
  // threadId → the stored text of its history.
  private readonly threads = new Map<string, string>();

  constructor(options?: InMemoryHistoryStoreOptions) {
    options = optionsOf(options, "InMemoryHistoryStore");
    this.capabilities = { encryptedValues: options.encryptedValues ?? true };
  }

  async save(threadId: string, history: ReasoningHistory): Promise<void> {
    checkThreadId(STORE, threadId);
    this.threads.set(threadId, recordOf(STORE, this.capabilities, history));
  }

  async load(threadId: string): Promise<ReasoningHistory | undefined> {
    checkThreadId(STORE, threadId);
    const stored = this.threads.get(threadId);
    return stored === undefined ? undefined : historyOfRecord(STORE, threadId, stored);
  }
}
