import { parseHistory, serializeHistory } from "./history-format";
import type { HistoryStoreCapabilities } from "./history-store";
import { stripValues } from "./strip-values";
import { quotedId } from "../core/errors";
import type { ReasoningHistory } from "../history/types";

/**
 * What every shipped store does on the way in and out, so they agree (D-PATHS): a thread id is a
 * non-empty string; what is stored is exactly the text `serializeHistory` writes (every
 * `encryptedValue` byte for byte, the issuer records); what is loaded is read by `parseHistory`, all
 * or nothing — a refused record is a `TypeError` naming the store, the thread and the JSON pointer
 * at fault, never half a history, never its content (D-REDACT).
 */

/** Throws unless `threadId` is a non-empty string. */
export function checkThreadId(store: string, threadId: unknown): asserts threadId is string {
  if (typeof threadId !== "string" || threadId === "")
    throw new TypeError(`agui-reasoning: ${store} needs a non-empty threadId string`);
}

/**
 * The record to store for `history`: what `load` reads back, or a `TypeError` naming the JSON pointer
 * at fault (a hand-built history: one the pipeline derived always loads, D-HISTORY-IDS). A store declaring `encryptedValues: false` refuses a history
 * still holding values: dropping them here would be a silent loss (R-REASON-19); `saveHistory` strips
 * them with a `VALUE_NOT_STORED` warning first.
 */
export function recordOf(store: string, capabilities: HistoryStoreCapabilities, history: ReasoningHistory): string {
  // A record `load` would refuse loses the thread, every value in it included, at the next session:
  // refused now, while the caller still holds the history. `serializeHistory` writes only what
  // `parseHistory` reads back equal (test/storage/round-trip.test.ts), so the record is not parsed again.
  const refused = `agui-reasoning: ${store}: refused to save a history that load would refuse: `;
  const record = readHistory(() => serializeHistory(history), refused);
  // The values are looked for in what was written, not in the caller's objects read a second time.
  if (!capabilities.encryptedValues && stripValues(parseHistory(record)).lost.length > 0) {
    throw new TypeError(
      `agui-reasoning: ${store}: this store cannot carry encrypted values and the history holds some; ` +
        "save it with saveHistory(), which strips them with a VALUE_NOT_STORED warning",
    );
  }
  return record;
}

/**
 * `read()` (a history read with `parseHistory`, `historyToJSON` or `serializeHistory`), or a `TypeError` that says `lead`
 * and then what the reader found, without the reader's own name (it is not the function the caller called).
 */
export function readHistory<T = ReasoningHistory>(read: () => T, lead: string): T {
  try {
    return read();
  } catch (error) {
    const problem = error instanceof Error ? error.message.replace(/^agui-reasoning: \w+: /, "") : "";
    throw new TypeError(`${lead}${problem}`, { cause: error });
  }
}

/** The history a stored record holds, or a `TypeError` naming the store, the thread and what is wrong with it. */
export function historyOfRecord(store: string, threadId: string, record: unknown): ReasoningHistory {
  const corrupt = `agui-reasoning: ${store}: the record of thread ${quotedId(threadId)} is corrupt: `;
  if (typeof record !== "string")
    throw new TypeError(
      `${corrupt}it is ${record === null ? "null" : typeof record}, not the text serializeHistory writes`,
    );
  // Text only: JSON data, nothing a writer would refuse. (A value — a structured clone — would be read
  // as strictly as the writers write by the same call, parseHistory's readerCopy.)
  return readHistory(() => parseHistory(record), corrupt);
}
