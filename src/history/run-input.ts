import type { Message, ToolCall } from "@ag-ui/core";
import type { WarningOptions } from "../core/types";
import { catalogued } from "../core/warning-codes";
import { warningSink } from "../core/warnings";
import { toolCallsOf } from "./conversation";
import { dropValues } from "./drop-values";
import type { ReasoningHistory } from "./types";

export interface RunInputOptions extends WarningOptions {
  /** The producer the run input goes to (D-ISSUER): only values it issued travel back. */
  producer: string;
}

/**
 * `RunAgentInput.messages` for the next run to `producer` (R-INPUT-3/4, R-REASON-17/26, D-ISSUER):
 * the whole history, reasoning messages included, minus activity messages (R-INPUT-4); every stored
 * `encryptedValue` byte for byte where its recorded issuer is `producer`, and left out everywhere
 * else — a value with no record, or issued by another producer, never travels (R-REASON-26). What
 * was left out is reported by one lossy `VALUE_WITHHELD` warning naming message / tool-call ids only.
 *
 * Returns new message, tool-call and function objects (content parts and metadata are shared, as in
 * the history); never mutates the history.
 */
export function toRunInputMessages(history: ReasoningHistory, options: RunInputOptions): Message[] {
  const producer = options.producer;
  if (typeof producer !== "string")
    throw new TypeError("agui-reasoning: toRunInputMessages needs a `producer` string (D-ISSUER)");
  // Entity id → recorded issuer, per subtype.
  const messageIssuer = new Map<string, string | undefined>();
  const toolCallIssuer = new Map<string, string | undefined>();
  for (const record of history.issuers) {
    (record.subtype === "message" ? messageIssuer : toolCallIssuer).set(record.entityId, record.issuer);
  }
  // Ids whose value was left out, in history order.
  const withheld: string[] = [];
  const notIssuedHere = (subtype: "message" | "tool-call", id: string): boolean => {
    const issuers = subtype === "message" ? messageIssuer : toolCallIssuer;
    return !(issuers.has(id) && issuers.get(id) === producer);
  };

  const messages: Message[] = [];
  for (const message of history.messages) {
    if (message.role === "activity") continue;
    messages.push(freshCopy(dropValues(message, notIssuedHere, withheld)));
  }

  if (withheld.length > 0) {
    warningSink(options)(
      catalogued("VALUE_WITHHELD", "D-ISSUER", {
        message: `${withheld.length} encrypted value(s) left out of the run input: not issued by this producer (R-REASON-26)`,
        ids: withheld,
      }),
    );
  }
  return messages;
}

/** New message, tool-call and function objects: what is sent can be changed without touching the history. */
function freshCopy(message: Message): Message {
  const copy = { ...message } as Message & { toolCalls?: ToolCall[] };
  const calls = toolCallsOf(message);
  if (calls !== undefined) copy.toolCalls = calls.map((call) => ({ ...call, function: { ...call.function } }));
  return copy;
}
