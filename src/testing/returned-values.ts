import { byteLength, isPlainObject, listCopy, presentItems } from "../core/json";
import { KindMap } from "../history/message-key";
import { kitError } from "./arguments";
/** An encrypted value an agent issued: on which message or tool call, and its exact text. */
export interface IssuedValue {
  readonly subtype: "message" | "tool-call";
  readonly entityId: string;
  readonly encryptedValue: string;
}

/** Whether one issued value came back in a request. */
export interface ReturnedValue {
  readonly subtype: "message" | "tool-call";
  readonly entityId: string;
  /** UTF-8 byte length of the value that was issued. */
  readonly bytes: number;
  /** The request carries it on its own message or tool call, with the same bytes (R-REASON-17). */
  readonly identical: boolean;
}

/**
 * For each value in `issued`, whether `request` — a `RunAgentInput`, or a `mockAgentServer` request
 * (its JSON body is one) — carries it back on the message or tool call it was issued for, byte for
 * byte (R-REASON-17): the server side of "did the client send my reasoning back?". The request is
 * read defensively: a missing or malformed `messages` list means nothing came back.
 */
export function returnedValues(request: unknown, issued: readonly IssuedValue[]): ReturnedValue[] {
  const given = issuedValues(issued);
  if (given === undefined) throw kitError("returnedValues expects `issued` to be an array of IssuedValue objects");
  const received = receivedValues(request);
  return given.map((v) => ({
    subtype: v.subtype,
    entityId: v.entityId,
    bytes: byteLength(v.encryptedValue),
    identical: (received.get(v.subtype, v.entityId) ?? []).includes(v.encryptedValue),
  }));
}

/** `issued` read once into a copy (`listCopy`), or `undefined` when it is no list of `IssuedValue`s. */
function issuedValues(issued: unknown): IssuedValue[] | undefined {
  try {
    if (!Array.isArray(issued)) return undefined;
    const given = listCopy(issued);
    return given.every(isIssued) ? given : undefined;
  } catch {
    return undefined; // a read that threw, a hole, a length past the bound
  }
}

/** Kind and id → the encrypted values `request` carries there; a read of it that throws is a `TypeError`. */
function receivedValues(request: unknown): KindMap<unknown[]> {
  try {
    return carried(request);
  } catch {
    // Never what the read threw: it may quote the conversation (D-REDACT).
    throw kitError("returnedValues cannot read the request (a read of it threw)");
  }
}

function carried(request: unknown): KindMap<unknown[]> {
  const body = isPlainObject(request) && "json" in request && !("messages" in request) ? request.json : request;
  // Kind and id → the values the request carries there: a tool result may share its message's id
  // (D-TOOL-RESULT-ID), and a value issued for that id is back if either of the two carries it.
  const received = new KindMap<unknown[]>();
  const carry = (kind: string, id: string, value: unknown): void => {
    const values = received.get(kind, id);
    if (values === undefined) received.set(kind, id, [value]);
    else values.push(value);
  };
  // A list read up to its first hole: a sparse one (a structured clone keeps one) claims 2³²−1 slots.
  const messages = isPlainObject(body) && Array.isArray(body.messages) ? presentItems(body.messages) : [];
  // Ids as they are (an issued one is a string): `String()` of a sparse array would be 2³²−1 commas.
  for (const m of messages) {
    if (!isPlainObject(m)) continue;
    if (typeof m.id === "string") carry("message", m.id, m.encryptedValue);
    for (const call of Array.isArray(m.toolCalls) ? presentItems(m.toolCalls) : []) {
      if (isPlainObject(call) && typeof call.id === "string") carry("tool-call", call.id, call.encryptedValue);
    }
  }
  return received;
}

const isIssued = (v: unknown): v is IssuedValue =>
  isPlainObject(v) &&
  typeof v.subtype === "string" &&
  typeof v.entityId === "string" &&
  typeof v.encryptedValue === "string";
