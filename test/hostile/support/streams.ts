import { ev } from "../../../src/testing/builders";
import type { AguiEvent } from "../../../src/core/types";
import { deepArray, deepObject } from "./run";

/**
 * Hostile streams shared by the hostile suite and the redaction scan. Every text a stream carries
 * (deltas, values, titles, tool arguments, results) is one of `SECRETS`, so the redaction scan can
 * look for it in every error and warning they produce.
 */

/** Ids that break code which uses ids as object keys, plus the empty id and a 1 MB one (R-EVT-9: ids are opaque). */
export const HOSTILE_IDS: readonly { readonly label: string; readonly id: string }[] = [
  { label: "__proto__", id: "__proto__" },
  { label: "constructor", id: "constructor" },
  { label: "toString", id: "toString" },
  { label: "hasOwnProperty", id: "hasOwnProperty" },
  { label: "valueOf", id: "valueOf" },
  { label: '"" (empty)', id: "" },
  { label: "1 MB", id: `mega-${"i".repeat(1024 * 1024)}` },
];

/** Content the hostile streams carry; none of it may reach an error or warning (D-REDACT). */
export const SECRETS = {
  thought: "hostile-thought-Qx7Lk2Vw",
  answer: "hostile-answer-Pm4Rt8Zs",
  args: '{"q":"hostile-args-Hb3Nc6Yd"}',
  result: "hostile-result-Wd9Fj1Ug",
  value: "hostile-value-Ke5Sa0Xo",
  title: "hostile-title-Tz2Gy7Mi",
} as const;

/** One event per family, every id `id`; families whose ids share the message namespace are in separate streams. */
export function reasoningStreamWithId(id: string): unknown[] {
  return [
    ev.runStarted(id, { threadId: id }),
    ev.subagentStarted(id),
    ev.reasoningStart(id, { subagentRunId: id }),
    ev.reasoningMessageStart(id, { subagentRunId: id }),
    ev.reasoningMessageContent(id, SECRETS.thought, { subagentRunId: id }),
    ev.reasoningMessageEnd(id, { subagentRunId: id }),
    ev.encryptedValue("message", id, SECRETS.value),
    ev.reasoningEnd(id, { subagentRunId: id }),
    ev.subagentFinished(id),
    ev.stepStarted(id),
    ev.stepFinished(id),
    ev.runFinished(id, { threadId: id }),
  ];
}

/** A text message `id` holding tool call `id` (tool calls have their own namespace), with a value on the call. */
export function toolStreamWithId(id: string): unknown[] {
  return [
    ev.runStarted("r1"),
    ev.textStart(id),
    ev.textContent(id, SECRETS.answer),
    ev.textEnd(id),
    ev.toolCallStart(id, "search", { parentMessageId: id }),
    ev.toolCallArgs(id, SECRETS.args),
    ev.toolCallEnd(id),
    ev.encryptedValue("tool-call", id, SECRETS.value),
    ev.toolCallResult(`${id}-result`, id, SECRETS.result),
    ev.runFinished("r1"),
  ];
}

/** The chunk spelling: reasoning message `id` in chunks, then tool call `id` in chunks under a parent. */
export function chunkStreamWithId(id: string): unknown[] {
  return [
    ev.runStarted("r1"),
    ev.reasoningChunk(id, SECRETS.thought),
    ev.reasoningChunk(undefined, SECRETS.thought),
    ev.textStart(`${id}-answer`),
    ev.textEnd(`${id}-answer`),
    ev.toolCallChunk(id, "search", SECRETS.args, { parentMessageId: `${id}-answer` }),
    ev.toolCallChunk(undefined, undefined, SECRETS.args),
    ev.runFinished("r1"),
  ];
}

/** Violations naming `id`: each stream fails at its last event. */
export function violationsWithId(id: string): { readonly code: string; readonly events: unknown[] }[] {
  return [
    { code: "DUPLICATE_OPEN", events: [ev.runStarted(), ev.reasoningStart(id), ev.reasoningStart(id)] },
    { code: "ORPHAN_CONTENT", events: [ev.runStarted(), ev.reasoningMessageContent(id, SECRETS.thought)] },
    { code: "ORPHAN_END", events: [ev.runStarted(), ev.toolCallEnd(id)] },
    {
      code: "ID_ROLE_CONFLICT",
      events: [ev.runStarted(), ev.textStart(id), ev.textEnd(id), ev.reasoningMessageStart(id)],
    },
    {
      code: "ATTRIBUTION_MISMATCH",
      events: [
        ev.runStarted(),
        ev.reasoningStart(id, { subagentRunId: "sub" }),
        ev.reasoningEnd(id, { subagentRunId: `${id}x` }),
      ],
    },
    { code: "OPEN_AT_RUN_FINISHED", events: [ev.runStarted(id), ev.stepStarted(id), ev.runFinished(id)] },
  ];
}

/** Non-object events: every one fails enforcement with MALFORMED_EVENT (R-PROC-4). */
export const NON_OBJECTS: readonly { readonly label: string; readonly value: () => unknown; readonly type: string }[] =
  [
    { label: "null", value: () => null, type: "<non-object: null>" },
    { label: "undefined", value: () => undefined, type: "<non-object: undefined>" },
    { label: "0", value: () => 0, type: "<non-object: number>" },
    { label: "NaN", value: () => NaN, type: "<non-object: number>" },
    { label: "a string", value: () => SECRETS.thought, type: "<non-object: string>" },
    { label: "a JSON string of an event", value: () => JSON.stringify(ev.runStarted()), type: "<non-object: string>" },
    { label: "true", value: () => true, type: "<non-object: boolean>" },
    { label: "an empty array", value: () => [], type: "<non-object: array>" },
    { label: "an array holding an event", value: () => [ev.runStarted()], type: "<non-object: array>" },
    { label: "a symbol", value: () => Symbol("event"), type: "<non-object: symbol>" },
    { label: "a function", value: () => () => ev.runStarted(), type: "<non-object: function>" },
    { label: "a bigint", value: () => 10n, type: "<non-object: bigint>" },
    { label: "an object without type", value: () => ({ messageId: "m1", delta: SECRETS.thought }), type: "<no type>" },
    { label: "an object with a numeric type", value: () => ({ type: 7, delta: SECRETS.thought }), type: "<no type>" },
    { label: "an object with a null type", value: () => ({ type: null }), type: "<no type>" },
    {
      label: "an object whose type is an object",
      value: () => ({ type: { toString: () => "RUN_STARTED" } }),
      type: "<no type>",
    },
  ];

/** An object whose `field` getter throws on every read. */
export function throwingGetter(event: Record<string, unknown>, field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...event };
  delete copy[field];
  Object.defineProperty(copy, field, {
    enumerable: true,
    get() {
      throw new TypeError(`getter ${field} refuses`);
    },
  });
  return copy;
}

/** A proxy every trap of which throws. */
export function throwingProxy(): object {
  const refuse = (): never => {
    throw new TypeError("proxy refuses");
  };
  return new Proxy(
    {},
    { get: refuse, has: refuse, ownKeys: refuse, getOwnPropertyDescriptor: refuse, getPrototypeOf: refuse },
  );
}

/** A revoked proxy: every operation on it throws a TypeError, `Array.isArray` included. */
export function revokedProxy(target: object = ev.runStarted()): object {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** Unreadable events (throwing getters, proxies), each after RUN_STARTED: MALFORMED_EVENT at index 1. */
export const UNREADABLE: readonly { readonly label: string; readonly value: () => unknown }[] = [
  { label: "a getter on type that throws", value: () => throwingGetter({ type: "RUN_STARTED" }, "type") },
  {
    label: "a getter on messageId that throws",
    value: () => throwingGetter(ev.reasoningMessageContent("m1", SECRETS.thought), "messageId"),
  },
  {
    label: "a getter on delta that throws",
    value: () => throwingGetter(ev.reasoningMessageContent("m1", SECRETS.thought), "delta"),
  },
  {
    label: "a getter on metadata that throws",
    value: () => throwingGetter(ev.reasoningStart("s1", { metadata: {} }), "metadata"),
  },
  {
    label: "a getter on encryptedValue that throws",
    value: () => throwingGetter(ev.encryptedValue("message", "m1", SECRETS.value), "encryptedValue"),
  },
  {
    label: "a legacy THINKING_START whose title getter throws",
    value: () => throwingGetter(ev.thinkingStart({ title: SECRETS.title }), "title"),
  },
  {
    label: "a legacy THINKING_TEXT_MESSAGE_CONTENT whose delta getter throws",
    value: () => throwingGetter(ev.thinkingTextMessageContent(SECRETS.thought), "delta"),
  },
  { label: "a proxy whose every trap throws", value: throwingProxy },
  { label: "a revoked proxy", value: () => revokedProxy() },
  { label: "a revoked proxy of a THINKING_START", value: () => revokedProxy(ev.thinkingStart()) },
];

/** Values nested `depth` levels in every place the protocol leaves open (metadata, rawEvent, CUSTOM, RAW, state, activity). */
export function deepStream(depth: number): unknown[] {
  const meta = (): Record<string, unknown> => ({ deep: deepObject(depth, SECRETS.thought) });
  return [
    ev.runStarted("r1", {
      input: {
        threadId: "t1",
        runId: "r1",
        messages: [],
        tools: [],
        context: [],
        state: deepObject(depth),
        forwardedProps: deepObject(depth),
      },
    }),
    ev.reasoningStart("s1", { metadata: meta(), rawEvent: deepObject(depth, SECRETS.thought) }),
    ev.reasoningMessageStart("m1", { metadata: meta() }),
    ev.reasoningMessageContent("m1", SECRETS.thought, { metadata: meta(), rawEvent: deepArray(depth) }),
    ev.reasoningMessageEnd("m1", { metadata: meta() }),
    ev.reasoningEnd("s1"),
    ev.reasoningChunk("m2", SECRETS.thought, { metadata: meta(), rawEvent: deepObject(depth) }),
    ev.reasoningChunk(undefined, undefined, { metadata: meta() }),
    ev.custom("deep", deepObject(depth, SECRETS.thought)),
    ev.custom("deeper", deepArray(depth, SECRETS.thought)),
    ev.raw(deepObject(depth, SECRETS.thought)),
    ev.stateSnapshot(deepObject(depth)),
    ev.stateDelta([{ op: "add", path: "/deep", value: deepObject(depth) }]),
    ev.messagesSnapshot([{ id: "m1", role: "reasoning", content: SECRETS.thought, metadata: meta() } as never]),
    ev.runFinished("r1", { result: deepObject(depth) }),
  ];
}

/** Index reads after which a lying list throws (`lyingList`): a reader that would loop for hours fails instead. */
export const READ_CAP = 10_000;

/**
 * A proxy of an array that lies about its length: each read of `length` answers the next of `lengths`
 * (the last one for every later read: `lyingList(item, 1, 2 ** 32 - 1)` grows after its first read), and
 * each index read a fresh `item()`, a plausible entry, so a loop over the claimed length meets no hole.
 * `reads()` counts the index reads; past `READ_CAP` a read throws, so a reader that would loop for
 * hours (2³²−1 plausible items) ends, with an error the tests do not expect, instead of hanging the run.
 */
export function lyingList(
  item: () => unknown,
  ...lengths: number[]
): { readonly list: unknown[]; readonly reads: () => number } {
  const claims = lengths.length === 0 ? [2 ** 32 - 1] : lengths;
  let lengthReads = 0;
  let reads = 0;
  const isIndex = (key: PropertyKey): boolean => typeof key === "string" && /^(0|[1-9]\d*)$/.test(key);
  const list = new Proxy([] as unknown[], {
    get(target, key) {
      if (key === "length") return claims[Math.min(lengthReads++, claims.length - 1)];
      if (!isIndex(key)) return Reflect.get(target, key) as unknown;
      if (++reads > READ_CAP) throw new Error(`lyingList: more than ${READ_CAP} index reads`);
      return item();
    },
    has: (target, key) => isIndex(key) || Reflect.has(target, key),
  });
  return { list, reads: () => reads };
}

/**
 * Where an event holds a list, each as the events that lead to it with `list` in place: the event holding it
 * is the last one (its index, `events(list).length - 1`, is where a failure is named).
 */
export const LIST_PLACES: readonly (readonly [name: string, events: (list: unknown[]) => AguiEvent[]])[] = [
  ["MESSAGES_SNAPSHOT.messages", (list) => [ev.runStarted(), ev.messagesSnapshot(list as never)]],
  [
    "a snapshot message's toolCalls",
    (list) => [ev.runStarted(), ev.messagesSnapshot([{ id: "a1", role: "assistant", toolCalls: list } as never])],
  ],
  [
    "RUN_STARTED.input.messages",
    (list) => [
      ev.runStarted("r1", {
        input: { threadId: "t", runId: "r1", messages: list, tools: [], context: [], state: {}, forwardedProps: {} },
      }),
    ],
  ],
  [
    "TOOL_CALL_RESULT.content",
    (list) => [
      ev.runStarted(),
      ev.toolCallStart("c1", "x"),
      ev.toolCallEnd("c1"),
      ev.toolCallResult("t1", "c1", list as never),
    ],
  ],
  [
    "ACTIVITY_DELTA.patch",
    (list) => [
      ev.runStarted(),
      { type: "ACTIVITY_SNAPSHOT", messageId: "a1", activityType: "x", content: {} },
      { type: "ACTIVITY_DELTA", messageId: "a1", activityType: "x", patch: list },
    ],
  ],
  ["STATE_DELTA.delta", (list) => [ev.runStarted(), { type: "STATE_DELTA", delta: list }]],
  [
    "SUBAGENT_FINISHED.outcome.interruptIds",
    (list) => [
      ev.runStarted(),
      ev.subagentStarted("S"),
      { type: "SUBAGENT_FINISHED", subagentRunId: "S", outcome: { type: "suspended", interruptIds: list } },
    ],
  ],
];
