import type { Message } from "@ag-ui/core";

/**
 * Synthetic, deterministic streams for the benchmark (issue 5). Every stream is a valid AG-UI 1.0 run
 * that every variant must accept without an error or a warning (bench/run.ts checks that before timing).
 */

/** How the content of the reasoning and text messages is spelled (R-STREAM-7/9). */
export type Form = "chunked" | "explicit";

/** A stream the benchmark times: the events plus the conversation the consumer already holds. */
export interface BenchStream {
  /** Stable key used in the table and in bench/results.json. */
  readonly key: string;
  /** The wire events, exactly as a producer would send them (plain objects). */
  readonly events: readonly Record<string, unknown>[];
  /** Messages held before the run (`initialMessages` for us, agent messages + `input.messages` for the reference). */
  readonly priorMessages: readonly Message[];
  /** Content events in the stream (reasoning + text deltas): the denominator of the per-delta cost. */
  readonly deltas: number;
  /** What the final history must hold: message id → content length (the cross-variant sanity check). */
  readonly expectedContent: ReadonlyMap<string, number>;
  /** Encrypted values the final history must hold (prior ones plus the stream's). */
  readonly expectedEncryptedValues: number;
  /** Events our validated output must have: the source plus each synthesized START/END pair. */
  readonly expectedOutputEvents: number;
}

/** A description of a stream, small enough to send to a child process. */
export type StreamSpec =
  | { readonly kind: "deltas"; readonly form: Form; readonly n: number }
  | { readonly kind: "long"; readonly prior: number; readonly n: number };

export const THREAD_ID = "bench-thread";
export const RUN_ID = "bench-run";

// Content deltas are 20 characters each; a small rotating set keeps them distinct without building
// N strings (building the stream is not part of what is timed, but it should stay cheap).
const DELTAS: readonly string[] = Array.from({ length: 16 }, (_, i) => `thought ${String(i).padStart(2, "0")} of twenty.`.slice(0, 20));
const delta = (i: number): string => DELTAS[i & 15]!;

/** An opaque provider artefact of `bytes` base64-ish characters (encrypted values are stored, never read). */
const opaque = (seed: number, bytes: number): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let s = "";
  for (let i = 0; i < bytes; i++) s += alphabet.charAt((seed * 31 + i * 7) & 63);
  return s;
};

/** The stable key of a spec (the table row name). */
export function streamKey(spec: StreamSpec): string {
  return spec.kind === "deltas" ? `${spec.form} N=${spec.n}` : `long prior=${spec.prior} N=${spec.n}`;
}

/** Builds the stream a spec describes. */
export function buildStream(spec: StreamSpec): BenchStream {
  return spec.kind === "deltas" ? deltaStream(spec.form, spec.n) : longConversation(spec.prior, spec.n);
}

/**
 * RUN_STARTED, a REASONING span holding one reasoning message of `n` deltas, an encrypted value on
 * that message, a text message of `n` deltas, a tool call carrying an encrypted value, RUN_FINISHED.
 * In the chunked form every message and the tool call use `*_CHUNK`s, and their ENDs are
 * synthesized by the close triggers (REASONING_END, the tool-call chunk, RUN_FINISHED: R-STREAM-15).
 */
function deltaStream(form: Form, n: number): BenchStream {
  const reasoningId = "reasoning-1";
  const textId = "text-1";
  const toolCallId = "call-1";
  const spanId = "span-1";
  const args = '{"query":"weather"}';
  const events: Record<string, unknown>[] = [{ type: "RUN_STARTED", threadId: THREAD_ID, runId: RUN_ID }];
  events.push({ type: "REASONING_START", messageId: spanId });
  if (form === "explicit") {
    events.push({ type: "REASONING_MESSAGE_START", messageId: reasoningId, role: "reasoning" });
    for (let i = 0; i < n; i++) events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: reasoningId, delta: delta(i) });
    events.push({ type: "REASONING_MESSAGE_END", messageId: reasoningId });
  } else {
    for (let i = 0; i < n; i++) events.push({ type: "REASONING_MESSAGE_CHUNK", messageId: reasoningId, delta: delta(i) });
  }
  // Stands aside in the chunk lane (R-STREAM-15b): the chunked message is still open here.
  events.push({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: reasoningId, encryptedValue: opaque(1, 1024) });
  events.push({ type: "REASONING_END", messageId: spanId });
  if (form === "explicit") {
    events.push({ type: "TEXT_MESSAGE_START", messageId: textId, role: "assistant" });
    for (let i = 0; i < n; i++) events.push({ type: "TEXT_MESSAGE_CONTENT", messageId: textId, delta: delta(i + 7) });
    events.push({ type: "TEXT_MESSAGE_END", messageId: textId });
    events.push({ type: "TOOL_CALL_START", toolCallId, toolCallName: "search", parentMessageId: textId });
    events.push({ type: "TOOL_CALL_ARGS", toolCallId, delta: args });
    events.push({ type: "TOOL_CALL_END", toolCallId });
  } else {
    for (let i = 0; i < n; i++) events.push({ type: "TEXT_MESSAGE_CHUNK", messageId: textId, delta: delta(i + 7) });
    events.push({ type: "TOOL_CALL_CHUNK", toolCallId, toolCallName: "search", parentMessageId: textId, delta: args });
  }
  events.push({ type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: toolCallId, encryptedValue: opaque(2, 512) });
  events.push({ type: "RUN_FINISHED", threadId: THREAD_ID, runId: RUN_ID });
  return {
    key: streamKey({ kind: "deltas", form, n }),
    events,
    priorMessages: [],
    deltas: 2 * n,
    expectedContent: new Map([
      [reasoningId, 20 * n],
      [textId, 20 * n],
    ]),
    expectedEncryptedValues: 2,
    // Chunked: the reasoning message, the text message and the tool call each gain a START and an END.
    expectedOutputEvents: events.length + (form === "chunked" ? 6 : 0),
  };
}

/**
 * `prior` messages already held (a realistic mix: user, reasoning with an encrypted value, assistant
 * with a tool call carrying one, tool result), then one run streaming a reasoning message of `n`
 * explicit deltas. Comparing prior = 10 with prior = 1,000 shows whether a delta's cost depends on
 * the size of the conversation (it must not: structural sharing, not copies).
 */
function longConversation(prior: number, n: number): BenchStream {
  const priorMessages = priorConversation(prior);
  const reasoningId = "reasoning-new";
  const spanId = "span-new";
  const events: Record<string, unknown>[] = [{ type: "RUN_STARTED", threadId: THREAD_ID, runId: RUN_ID }];
  events.push({ type: "REASONING_START", messageId: spanId });
  events.push({ type: "REASONING_MESSAGE_START", messageId: reasoningId, role: "reasoning" });
  for (let i = 0; i < n; i++) events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: reasoningId, delta: delta(i) });
  events.push({ type: "REASONING_MESSAGE_END", messageId: reasoningId });
  events.push({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: reasoningId, encryptedValue: opaque(3, 1024) });
  events.push({ type: "REASONING_END", messageId: spanId });
  events.push({ type: "RUN_FINISHED", threadId: THREAD_ID, runId: RUN_ID });
  return {
    key: streamKey({ kind: "long", prior, n }),
    events,
    priorMessages,
    deltas: n,
    expectedContent: new Map([[reasoningId, 20 * n]]),
    expectedEncryptedValues: countEncryptedValues(priorMessages) + 1,
    expectedOutputEvents: events.length,
  };
}

/** `count` prior messages cycling user → reasoning → assistant (with a tool call) → tool. */
export function priorConversation(count: number): Message[] {
  const messages: Message[] = [];
  const text = (i: number, length: number): string => `message ${i} `.padEnd(length, "lorem ipsum ");
  for (let i = 0; i < count; i++) {
    const turn = Math.floor(i / 4);
    switch (i % 4) {
      case 0:
        messages.push({ id: `user-${turn}`, role: "user", content: text(i, 200) });
        break;
      case 1:
        messages.push({ id: `reasoning-${turn}`, role: "reasoning", content: text(i, 400), encryptedValue: opaque(i, 256) });
        break;
      case 2:
        messages.push({
          id: `assistant-${turn}`,
          role: "assistant",
          content: text(i, 200),
          toolCalls: [
            {
              id: `call-${turn}`,
              type: "function",
              function: { name: "search", arguments: `{"query":"q${turn}"}` },
              encryptedValue: opaque(i + 1, 128),
            },
          ],
        });
        break;
      default:
        messages.push({ id: `tool-${turn}`, role: "tool", toolCallId: `call-${turn}`, content: text(i, 100) });
    }
  }
  return messages;
}

/** Encrypted values stored on messages and on their tool calls. */
export function countEncryptedValues(messages: readonly Message[]): number {
  let count = 0;
  for (const m of messages) {
    if ("encryptedValue" in m && typeof m.encryptedValue === "string") count++;
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) if (typeof c.encryptedValue === "string") count++;
  }
  return count;
}
