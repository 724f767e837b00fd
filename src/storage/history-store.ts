import type { WarningOptions } from "../core/types";
import { rawField } from "../core/json";
import { checkHistory, optionsOf } from "../core/arguments";
import { catalogued } from "../core/warning-codes";
import { warningSink } from "../core/warnings";
import type { ReasoningHistory } from "../history/types";
import { readBack } from "./history-format";
import { checkThreadId, readHistory } from "./stored-record";
import { stripValues } from "./strip-values";

/** What a store can keep. */
export interface HistoryStoreCapabilities {
  /**
   * The store keeps `encryptedValue`s (and their issuers). A store that cannot — a schema without
   * the column, a store shared with parties that must not see them (R-REASON-26) — says `false`,
   * and `saveHistory` strips the values with a warning (R-REASON-19).
   */
  readonly encryptedValues: boolean;
}

/**
 * Where conversation histories live between sessions, one per thread. `save` replaces what the
 * thread held; `load` gives it back (`undefined` for a thread never saved). Without `capabilities`
 * a store is taken to keep everything it is given.
 */
export interface HistoryStore {
  save(threadId: string, history: ReasoningHistory): Promise<void>;
  load(threadId: string): Promise<ReasoningHistory | undefined>;
  readonly capabilities?: HistoryStoreCapabilities;
}

/** Options of `saveHistory`: where the `VALUE_NOT_STORED` warning goes (lossy: never silenced, R-VER-7). */
export type SaveHistoryOptions = WarningOptions;

/**
 * Saves `history` for `threadId`. When the store cannot carry encrypted values, they are stripped
 * (with their issuer records) before the store sees them, and one lossy `VALUE_NOT_STORED` warning
 * names the message and tool-call ids whose values were lost (R-REASON-19, R-VER-6, #85): the
 * producer will not be able to restore that reasoning context. Never the values themselves (D-REDACT).
 */
export async function saveHistory(
  store: HistoryStore,
  threadId: string,
  history: ReasoningHistory,
  options?: SaveHistoryOptions,
): Promise<void> {
  checkThreadId("saveHistory", threadId);
  options = optionsOf(options, "saveHistory");
  if (typeof rawField(store, "save") !== "function")
    throw new TypeError("agui-reasoning: saveHistory needs a HistoryStore (an object with a `save` method)");
  // What every way in refuses (D-HISTORY-IDS) no store sees.
  const refused = "agui-reasoning: saveHistory: not a history a store can keep: ";
  readHistory(() => checkHistory(history, "saveHistory"), refused);
  if (store.capabilities?.encryptedValues !== false) return store.save(threadId, history);
  // Stripping reads every message: what is not a history a store could keep is refused first, as the
  // shipped stores' `save` refuses it — a `TypeError` naming the JSON pointer, not one from inside —
  // and what is stripped is the copy read then, not the caller's objects read a second time.
  const stripped = stripValues(readHistory(() => readBack(history, "saveHistory"), refused));
  if (stripped.lost.length > 0) {
    warningSink(options)(
      catalogued("VALUE_NOT_STORED", "R-REASON-19", {
        message:
          `${stripped.lost.length} encrypted value(s) not stored: the history store cannot carry encrypted values, ` +
          "so the producer cannot restore that reasoning context in a later run (R-VER-6); use a store that keeps them",
        ids: stripped.lost,
      }),
    );
  }
  // Nothing stripped: the store gets the history it was given, as a store that keeps values does.
  return store.save(threadId, stripped.lost.length > 0 ? stripped.history : history);
}
