import type { Message, ToolCall } from "@ag-ui/core";
import type { ReasoningWarning, WarningOptions } from "../core/types";
import { quotedId } from "../core/errors";
import { plural } from "../core/plural";
import { catalogued } from "../core/warning-codes";
import { warningSink } from "../core/warnings";
import { toolCallsOf } from "./conversation";
import { dropValues, type DropValue } from "./drop-values";
import { KindMap, messageKind, ownIssuers, recordKind } from "./message-key";
import { sameProducer, shownIdentity } from "./producer-identity";
import type { ReasoningHistory } from "./types";
import { checkHistory, optionsOf, readAgain } from "../core/arguments";
import { listCopy } from "../core/json";

export interface RunInputOptions extends WarningOptions {
  /** The producer the run input goes to (D-ISSUER): only values it issued travel back. */
  producer: string;
}

/**
 * `RunAgentInput.messages` for the next run to `producer` (R-INPUT-3/4, R-REASON-17/26, D-ISSUER):
 * the history minus activity messages, with each `encryptedValue` byte for byte where its recorded
 * issuer is `producer` (D-IDENTITY) and left out everywhere else, reported by one lossy
 * `VALUE_WITHHELD` naming both identities and the ids. New message, tool-call and function objects
 * (content parts and metadata shared); the history is not mutated.
 */
export function toRunInputMessages(history: ReasoningHistory, options: RunInputOptions): Message[] {
  // The check's copies of its lists: a proxy may answer a second read of a list's length otherwise.
  const checked = checkHistory(history, "toRunInputMessages");
  options = optionsOf(options, "toRunInputMessages");
  const producer = options.producer;
  if (typeof producer !== "string")
    throw new TypeError("agui-reasoning: toRunInputMessages needs a `producer` string (D-ISSUER)");
  const read = readAgain("toRunInputMessages", () => ({ ...checked, messages: checked.messages.map(callsRead) }));
  return runInputOfRead(read, producer, options);
}

/**
 * `toRunInputMessages` of a history whose lists and messages' tool-call lists are read once already
 * (plain arrays of its own, checked): the middleware's, built from the run input it checked
 * (kept-conversation.ts), which the public function would check and copy a second time.
 */
export function runInputOfRead(
  history: ReasoningHistory,
  producer: string,
  options: WarningOptions,
  caller = "toRunInputMessages",
): Message[] {
  const withheld = new WithheldValues();
  const dropped: string[] = [];
  const messages = readAgain(caller, () => runInput(history, producer, withheld, dropped));
  if (dropped.length > 0) warningSink(options)(withheld.warning(producer, dropped));
  return messages;
}

/** The run input's messages of a checked history; each value left out is added to `withheld` and `dropped`. */
function runInput(history: ReasoningHistory, producer: string, withheld: WithheldValues, dropped: string[]): Message[] {
  // Value (as `recordKind` and id) → recorded issuer; a record of a value on a tool message is its own (D-HISTORY-IDS).
  const recorded = new KindMap<string | undefined>();
  for (const record of ownIssuers(history.messages, history.issuers))
    recorded.set(recordKind(record), record.entityId, record.issuer);
  // Whether each recorded identity names `producer` (D-IDENTITY), asked once per distinct identity.
  const judged = new Map<string | undefined, boolean>();
  const issuedHere = (issuer: string | undefined): boolean => {
    let same = judged.get(issuer);
    if (same === undefined) judged.set(issuer, (same = sameProducer(issuer, producer)));
    return same;
  };
  // The message `dropValues` is asked about: its own value's key depends on its role.
  let current: Message;
  const notIssuedHere: DropValue = (subtype, id) => {
    const issuer = recorded.get(subtype === "message" ? messageKind(current) : subtype, id);
    if (issuedHere(issuer)) return false;
    withheld.add(issuer, subtype, id);
    return true;
  };
  const messages: Message[] = [];
  for (const message of history.messages) {
    if (message.role === "activity") continue;
    current = message;
    messages.push(freshCopy(dropValues(message, notIssuedHere, dropped)));
  }
  return messages;
}

/** The values left out of one run input, by recorded issuer: what `VALUE_WITHHELD` says (D-IDENTITY). */
class WithheldValues {
  private readonly byIssuer = new Map<string | undefined, { messages: string[]; toolCalls: string[] }>();

  add(issuer: string | undefined, subtype: "message" | "tool-call", id: string): void {
    let group = this.byIssuer.get(issuer);
    if (group === undefined) this.byIssuer.set(issuer, (group = { messages: [], toolCalls: [] }));
    (subtype === "message" ? group.messages : group.toolCalls).push(id);
  }

  /**
   * One lossy warning naming the producer the input goes to and each recorded issuer (userinfo,
   * query and fragment removed), with how many values on which message and tool-call ids.
   */
  warning(producer: string, ids: readonly string[]): ReasoningWarning {
    const groups = [...this.byIssuer].map(([issuer, { messages, toolCalls }]) => {
      const by = issuer === undefined ? "with no recorded issuer" : `issued by ${shownIdentity(issuer)}`;
      const on = [idList("message", messages), idList("tool call", toolCalls)].filter((s) => s !== "").join(", ");
      return `${plural(messages.length + toolCalls.length, "value")} ${by} (on ${on})`;
    });
    const named = [...this.byIssuer.keys()].some((issuer) => typeof issuer === "string");
    return catalogued("VALUE_WITHHELD", "D-ISSUER", {
      message:
        `${plural(ids.length, "encrypted value")} left out of the run input for producer ${shownIdentity(producer)}, ` +
        `which did not issue them (R-REASON-26): ${groups.join("; ")}` +
        (named ? "; a producer that changed its identity loses its values: give it a stable one (D-IDENTITY)" : ""),
      ids,
    });
  }
}

/** `message "a", "b"` / `tool calls "c"`: ids as warnings show them, at most ten. */
function idList(kind: string, ids: readonly string[]): string {
  if (ids.length === 0) return "";
  const shown = ids.slice(0, 10).map(quotedId);
  const more = ids.length > 10 ? ` and ${ids.length - 10} more` : "";
  return `${ids.length === 1 ? kind : `${kind}s`} ${shown.join(", ")}${more}`;
}

/** `message`, its tool calls (if any) read once into a list of its own (`listCopy`). */
function callsRead(message: Message): Message {
  const calls = toolCallsOf(message);
  if (calls === undefined) return message;
  return { ...message, toolCalls: listCopy(calls) } as Message;
}

/** New message, tool-call and function objects: what is sent can be changed without touching the history. */
function freshCopy(message: Message): Message {
  const copy = { ...message } as Message & { toolCalls?: ToolCall[] };
  const calls = toolCallsOf(message);
  if (calls !== undefined) copy.toolCalls = calls.map((call) => ({ ...call, function: { ...call.function } }));
  return copy;
}
