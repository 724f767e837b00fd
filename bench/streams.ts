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
  /** Messages the final history must hold, when not only those of `expectedContent` (activity messages have object content). */
  readonly expectedMessages?: number;
}

/** A description of a stream, small enough to send to a child process. */
export type StreamSpec =
  | { readonly kind: "deltas"; readonly form: Form; readonly n: number }
  | { readonly kind: "long"; readonly prior: number; readonly n: number }
  | { readonly kind: "conversation"; readonly shape: ConversationShape; readonly runs: number };

/**
 * The shapes of a real conversation (issue 13), run after run in one source:
 * `mixed`: per run, a step pair, a reasoning span around a chunked reasoning message (20 chunks, only
 * the first carrying the id) with an encrypted value, a streamed answer (20 deltas), a tool call on it
 * (10 argument deltas) with an encrypted value, its result — 63 events;
 * `parallel`: per run, an activity snapshot patched twice, a state snapshot, a reasoning message and
 * the answer streaming interleaved (both open at once), two tool calls streaming interleaved, values on
 * all three, two results — 70 events.
 */
export type ConversationShape = "mixed" | "parallel";

export const THREAD_ID = "bench-thread";
export const RUN_ID = "bench-run";

// Content deltas are 20 characters each; a small rotating set keeps them distinct without building
// N strings (building the stream is not part of what is timed, but it should stay cheap).
const DELTAS: readonly string[] = Array.from({ length: 16 }, (_, i) =>
  `thought ${String(i).padStart(2, "0")} of twenty.`.slice(0, 20),
);
const delta = (i: number): string => DELTAS[i & 15]!;

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// ALPHABET[7j mod 64] at j: every value is a run of it (see `opaque`).
const CYCLE = Buffer.from(Array.from({ length: 64 + 4096 }, (_, j) => ALPHABET.charCodeAt((7 * j) & 63)));

/**
 * An opaque provider artefact of `bytes` base64-ish characters (encrypted values are stored, never
 * read). Flat, as `JSON.parse` makes a wire value: built with `+=`, a 256-character value was a chain
 * of ≈ 240 cons cells, which the history keeps; 16,000 runs held 230 MB of them beside 43 MB of
 * history, and every major collection marked them (P1–P3, M1–M4 measured that, not the pipeline).
 */
const opaque = (seed: number, bytes: number): string =>
  // Character i is ALPHABET[(seed·31 + 7i) mod 64] = CYCLE[t + i], t = (seed·31)·7⁻¹ mod 64 (7⁻¹ = 55):
  // one copy out of a buffer, a fresh flat string as JSON.parse makes one. Built a character at a
  // time (an array of `bytes` one-character strings, joined), the values were a fifth of the CPU
  // profile of P2's generator-fed runs, and that share grew with the heap the pipeline keeps.
  CYCLE.toString("latin1", (((seed * 31) & 63) * 55) & 63, ((((seed * 31) & 63) * 55) & 63) + bytes);

/** The stable key of a spec (the table row name). */
export function streamKey(spec: StreamSpec): string {
  if (spec.kind === "conversation") return `${spec.shape} runs=${spec.runs}`;
  return spec.kind === "deltas" ? `${spec.form} N=${spec.n}` : `long prior=${spec.prior} N=${spec.n}`;
}

/** Builds the stream a spec describes. */
export function buildStream(spec: StreamSpec): BenchStream {
  if (spec.kind === "conversation") return conversation(spec.shape, spec.runs);
  return spec.kind === "deltas" ? deltaStream(spec.form, spec.n) : longConversation(spec.prior, spec.n);
}

/** `runs` runs of one shape in one source (see `ConversationShape`); ids are unique per run. */
function conversation(shape: ConversationShape, runs: number): BenchStream {
  const events: Record<string, unknown>[] = [];
  const tally: RunTally = { content: new Map<string, number>(), values: 0, synthesized: 0, activities: 0 };
  for (let r = 0; r < runs; r++) pushRun(shape, r, events, tally);
  const { content, values, synthesized, activities } = tally;
  return {
    key: streamKey({ kind: "conversation", shape, runs }),
    events,
    priorMessages: [],
    deltas: events.filter((e) => typeof e.delta === "string").length,
    expectedContent: content,
    expectedEncryptedValues: values,
    expectedOutputEvents: events.length + synthesized,
    expectedMessages: content.size + activities,
  };
}

/** What the runs of a conversation add up to (the sanity check's expectations). */
interface RunTally {
  readonly content: Map<string, number>;
  values: number;
  synthesized: number;
  activities: number;
}

/**
 * The events of `runs` runs of `shape`, produced one run at a time while the consumer takes them: the
 * whole conversation is never in memory (issue 23: growth and peak heap measured without the
 * benchmark's own million-event array).
 */
export function* conversationEvents(shape: ConversationShape, runs: number): Generator<Record<string, unknown>> {
  const tally: RunTally = { content: new Map<string, number>(), values: 0, synthesized: 0, activities: 0 };
  const events: Record<string, unknown>[] = [];
  for (let r = 0; r < runs; r++) {
    events.length = 0;
    tally.content.clear();
    pushRun(shape, r, events, tally);
    yield* events;
  }
}

/** Appends run `r` of `shape` to `events`, and what it holds to `tally`. */
function pushRun(shape: ConversationShape, r: number, events: Record<string, unknown>[], tally: RunTally): void {
  const content = tally.content;
  const text = (messageId: string, type: string, count: number, offset: number): void => {
    for (let i = 0; i < count; i++) events.push({ type, messageId, delta: delta(i + offset) });
    content.set(messageId, 20 * count);
  };
  const runId = `run-${r}`;
  const [reasoningId, answerId, callId, spanId] = [`reasoning-${r}`, `answer-${r}`, `call-${r}`, `span-${r}`];
  events.push({ type: "RUN_STARTED", threadId: THREAD_ID, runId });
  if (shape === "mixed") {
    events.push({ type: "STEP_STARTED", stepName: "think" }, { type: "STEP_FINISHED", stepName: "think" });
    events.push({ type: "REASONING_START", messageId: spanId });
    events.push({ type: "REASONING_MESSAGE_CHUNK", messageId: reasoningId, delta: delta(r) });
    for (let i = 1; i < 20; i++) events.push({ type: "REASONING_MESSAGE_CHUNK", delta: delta(i + r) });
    content.set(reasoningId, 400);
    events.push({
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "message",
      entityId: reasoningId,
      encryptedValue: opaque(r, 256),
    });
    events.push({ type: "REASONING_END", messageId: spanId });
    events.push({ type: "TEXT_MESSAGE_START", messageId: answerId, role: "assistant" });
    text(answerId, "TEXT_MESSAGE_CONTENT", 20, r + 3);
    events.push({ type: "TEXT_MESSAGE_END", messageId: answerId });
    events.push({ type: "TOOL_CALL_START", toolCallId: callId, toolCallName: "search", parentMessageId: answerId });
    for (let i = 0; i < 10; i++)
      events.push({ type: "TOOL_CALL_ARGS", toolCallId: callId, delta: i === 0 ? '{"q":"' : "weather " });
    events.push({ type: "TOOL_CALL_END", toolCallId: callId });
    events.push({
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "tool-call",
      entityId: callId,
      encryptedValue: opaque(r + 1, 128),
    });
    events.push({ type: "TOOL_CALL_RESULT", messageId: `result-${r}`, toolCallId: callId, content: "sunny" });
    content.set(`result-${r}`, 5);
    tally.values += 2;
    // The reasoning chunks gain a START and an END.
    tally.synthesized += 2;
  } else {
    const [planId, otherCallId] = [`plan-${r}`, `call-${r}-b`];
    events.push({
      type: "ACTIVITY_SNAPSHOT",
      messageId: planId,
      activityType: "PLAN",
      content: { steps: ["search", "answer"], done: 0 },
    });
    events.push({ type: "STATE_SNAPSHOT", snapshot: { run: r, phase: "thinking" } });
    events.push({ type: "REASONING_START", messageId: spanId });
    events.push({ type: "REASONING_MESSAGE_START", messageId: reasoningId, role: "reasoning" });
    events.push({ type: "TEXT_MESSAGE_START", messageId: answerId, role: "assistant" });
    for (let i = 0; i < 12; i++) {
      events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: reasoningId, delta: delta(i + r) });
      events.push({ type: "TEXT_MESSAGE_CONTENT", messageId: answerId, delta: delta(i + r + 5) });
    }
    content.set(reasoningId, 240);
    content.set(answerId, 240);
    events.push({ type: "REASONING_MESSAGE_END", messageId: reasoningId });
    events.push({
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "message",
      entityId: reasoningId,
      encryptedValue: opaque(r, 256),
    });
    events.push({ type: "REASONING_END", messageId: spanId });
    events.push({
      type: "ACTIVITY_DELTA",
      messageId: planId,
      activityType: "PLAN",
      patch: [{ op: "replace", path: "/done", value: 1 }],
    });
    events.push({ type: "TOOL_CALL_START", toolCallId: callId, toolCallName: "search", parentMessageId: answerId });
    events.push({
      type: "TOOL_CALL_START",
      toolCallId: otherCallId,
      toolCallName: "lookup",
      parentMessageId: answerId,
    });
    for (let i = 0; i < 5; i++) {
      events.push({ type: "TOOL_CALL_ARGS", toolCallId: callId, delta: i === 0 ? '{"q":"' : "weather " });
      events.push({ type: "TOOL_CALL_ARGS", toolCallId: otherCallId, delta: i === 0 ? '{"k":"' : "city " });
    }
    events.push({ type: "TOOL_CALL_END", toolCallId: callId }, { type: "TOOL_CALL_END", toolCallId: otherCallId });
    events.push({ type: "TEXT_MESSAGE_END", messageId: answerId });
    events.push({
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "tool-call",
      entityId: callId,
      encryptedValue: opaque(r + 1, 128),
    });
    events.push({
      type: "REASONING_ENCRYPTED_VALUE",
      subtype: "tool-call",
      entityId: otherCallId,
      encryptedValue: opaque(r + 2, 128),
    });
    events.push({ type: "TOOL_CALL_RESULT", messageId: `result-${r}`, toolCallId: callId, content: "sunny" });
    events.push({ type: "TOOL_CALL_RESULT", messageId: `result-${r}-b`, toolCallId: otherCallId, content: "Paris" });
    events.push({
      type: "ACTIVITY_DELTA",
      messageId: planId,
      activityType: "PLAN",
      patch: [{ op: "replace", path: "/done", value: 2 }],
    });
    content.set(`result-${r}`, 5);
    content.set(`result-${r}-b`, 5);
    tally.values += 3;
    tally.activities++;
  }
  events.push({ type: "RUN_FINISHED", threadId: THREAD_ID, runId });
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
    for (let i = 0; i < n; i++)
      events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: reasoningId, delta: delta(i) });
    events.push({ type: "REASONING_MESSAGE_END", messageId: reasoningId });
  } else {
    for (let i = 0; i < n; i++)
      events.push({ type: "REASONING_MESSAGE_CHUNK", messageId: reasoningId, delta: delta(i) });
  }
  // Stands aside in the chunk lane (R-STREAM-15b): the chunked message is still open here.
  events.push({
    type: "REASONING_ENCRYPTED_VALUE",
    subtype: "message",
    entityId: reasoningId,
    encryptedValue: opaque(1, 1024),
  });
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
  events.push({
    type: "REASONING_ENCRYPTED_VALUE",
    subtype: "tool-call",
    entityId: toolCallId,
    encryptedValue: opaque(2, 512),
  });
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
  for (let i = 0; i < n; i++)
    events.push({ type: "REASONING_MESSAGE_CONTENT", messageId: reasoningId, delta: delta(i) });
  events.push({ type: "REASONING_MESSAGE_END", messageId: reasoningId });
  events.push({
    type: "REASONING_ENCRYPTED_VALUE",
    subtype: "message",
    entityId: reasoningId,
    encryptedValue: opaque(3, 1024),
  });
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
        messages.push({
          id: `reasoning-${turn}`,
          role: "reasoning",
          content: text(i, 400),
          encryptedValue: opaque(i, 256),
        });
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
