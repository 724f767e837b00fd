import { stripValues } from "./strip-values";
import { parseHistory, serializeHistory } from "./history-format";
import type { HistoryStore, HistoryStoreCapabilities } from "./history-store";
import type { ReasoningHistory } from "../history/types";

export interface InMemoryHistoryStoreOptions {
  /** Whether the store keeps encrypted values (default true). `false` models a store that cannot. */
  readonly encryptedValues?: boolean;
}

/**
 * The reference `HistoryStore`: each thread's history kept as the text `serializeHistory` makes and
 * read back with `parseHistory`, so what `load` returns went through the stored form exactly as a
 * real store's would, and shares nothing with what was saved.
 *
 * A store declaring `encryptedValues: false` refuses a history that still holds values: dropping
 * them here would be a silent loss (R-REASON-19). Save through `saveHistory`, which strips and warns.
 */
export class InMemoryHistoryStore implements HistoryStore {
  readonly capabilities: HistoryStoreCapabilities;
  // threadId → the stored text of its history.
  private readonly threads = new Map<string, string>();

  constructor(options: InMemoryHistoryStoreOptions = {}) {
    this.capabilities = { encryptedValues: options.encryptedValues ?? true };
  }

  async save(threadId: string, history: ReasoningHistory): Promise<void> {
    checkThreadId(threadId);
    if (!this.capabilities.encryptedValues && stripValues(history).lost.length > 0) {
      throw new TypeError(
        "agui-reasoning: InMemoryHistoryStore: this store cannot carry encrypted values and the history holds some; " +
          "save it with saveHistory(), which strips them with a VALUE_NOT_STORED warning",
      );
    }
    this.threads.set(threadId, serializeHistory(history));
  }

  async load(threadId: string): Promise<ReasoningHistory | undefined> {
    checkThreadId(threadId);
    const stored = this.threads.get(threadId);
    return stored === undefined ? undefined : parseHistory(stored);
  }
}

function checkThreadId(threadId: unknown): void {
  if (typeof threadId !== "string" || threadId === "")
    throw new TypeError("agui-reasoning: InMemoryHistoryStore needs a non-empty threadId string");
}
