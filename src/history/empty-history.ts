import type { ReasoningHistory } from "./types";

/**
 * A conversation with nothing in it yet: what the first turn starts from (`initialHistory`, or the
 * history `toRunInputMessages` reads). A new object on every call; written here once, so code that
 * starts a conversation does not spell out every list of a `ReasoningHistory` itself.
 */
export function emptyHistory(): ReasoningHistory {
  return { messages: [], incomplete: [], issuers: [] };
}
