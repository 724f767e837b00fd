import fc from "fast-check";
import type { Message } from "@ag-ui/core";
import { ev, msg } from "../../src/testing/builders";
import { MARK } from "./scan";

/**
 * Generated streams for the redaction scan: runs of reasoning (explicit and chunked, in spans and
 * subagent lanes), text, tool calls, values on every kind of target, legacy THINKING_* events,
 * snapshots, activity, pass-through and unknown events — every text a distinctive marker (`§` and
 * 10–16 random characters) — then mutated (drop, duplicate, swap, retarget, truncate, corrupt a
 * field, replace by a non-object) so that most of them end in an error or warnings. Ids come from
 * small pools, never from markers, so an id in a message is never mistaken for content.
 */

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
// eslint-disable-next-line @typescript-eslint/no-misused-spread -- ALNUM is ASCII letters and digits only
const marker = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 10, maxLength: 16 }).map((s) => `${MARK}${s}`);

const messageId = fc.constantFrom("m1", "m2", "m3");
const spanId = fc.constantFrom("s1", "s2");
const textId = fc.constantFrom("a1", "a2");
const toolId = fc.constantFrom("tc1", "tc2");
const laneId = fc.constantFrom("sub1", "sub2");
/** Every id of every pool: what a retargeting mutation picks from. */
const ANY_ID = ["m1", "m2", "m3", "s1", "s2", "a1", "a2", "tc1", "tc2", "sub1", "sub2", "act", "nobody"];

const metadata = fc.option(fc.record({ note: marker }), { nil: undefined });
const withMeta = (m: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
  m === undefined ? undefined : { metadata: m };

const explicitReasoning = fc
  .tuple(messageId, fc.array(marker, { maxLength: 3 }), fc.option(marker, { nil: undefined }), metadata)
  .map(([id, deltas, value, m]) => [
    ev.reasoningMessageStart(id, withMeta(m)),
    ...deltas.map((d) => ev.reasoningMessageContent(id, d, withMeta(m))),
    ev.reasoningMessageEnd(id),
    ...(value === undefined ? [] : [ev.encryptedValue("message", id, value)]),
  ]);

const span = fc
  .tuple(spanId, explicitReasoning, metadata)
  .map(([id, inner, m]) => [ev.reasoningStart(id, withMeta(m)), ...inner, ev.reasoningEnd(id)]);

const chunkedReasoning = fc
  .tuple(messageId, fc.array(marker, { minLength: 1, maxLength: 3 }), metadata)
  .map(([id, deltas, m]) => deltas.map((d, i) => ev.reasoningChunk(i === 0 ? id : undefined, d, withMeta(m))));

const subagentLane = fc
  .tuple(laneId, messageId, fc.array(marker, { minLength: 1, maxLength: 3 }))
  .map(([lane, id, deltas]) => [
    ev.subagentStarted(lane),
    ...deltas.map((d, i) => ev.reasoningChunk(i === 0 ? id : undefined, d, { subagentRunId: lane })),
    ev.subagentFinished(lane),
  ]);

const text = fc
  .tuple(textId, fc.array(marker, { maxLength: 2 }), fc.boolean())
  .map(([id, deltas, chunked]) =>
    chunked
      ? deltas.map((d, i) => ev.textChunk(i === 0 ? id : undefined, d))
      : [ev.textStart(id), ...deltas.map((d) => ev.textContent(id, d)), ev.textEnd(id)],
  );

const toolCall = fc
  .tuple(
    toolId,
    fc.option(textId, { nil: undefined }),
    marker,
    fc.option(marker, { nil: undefined }),
    fc.option(marker, { nil: undefined }),
    metadata,
  )
  .map(([id, parent, args, value, result, m]) => [
    ev.toolCallStart(id, "search", { ...(parent && { parentMessageId: parent }), ...withMeta(m) }),
    ev.toolCallArgs(id, args),
    ev.toolCallEnd(id),
    ...(value === undefined ? [] : [ev.encryptedValue("tool-call", id, value)]),
    ...(result === undefined ? [] : [ev.toolCallResult(`res-${id}`, id, result)]),
  ]);

const legacy = fc
  .tuple(fc.option(marker, { nil: undefined }), fc.array(marker, { maxLength: 2 }))
  .map(([title, deltas]) => [
    ev.thinkingStart(title === undefined ? {} : { title }),
    ev.thinkingTextMessageStart(),
    ...deltas.map((d) => ev.thinkingTextMessageContent(d)),
    ev.thinkingTextMessageEnd(),
    ev.thinkingEnd(),
  ]);

const snapshotMessage: fc.Arbitrary<Message> = fc.oneof(
  fc
    .tuple(messageId, marker, fc.option(marker, { nil: undefined }))
    .map(([id, content, value]) =>
      msg.reasoning(id, content, value === undefined ? undefined : { encryptedValue: value }),
    ),
  fc
    .tuple(textId, marker, toolId, marker, marker)
    .map(([id, content, call, args, value]) =>
      msg.assistant(id, content, { toolCalls: [msg.toolCall(call, "search", args, { encryptedValue: value })] }),
    ),
  marker.map((content) => msg.user("u1", content)),
  marker.map((content) => ({ id: "c1", role: "critic", content }) as unknown as Message),
);
const snapshot = fc.array(snapshotMessage, { maxLength: 4 }).map((messages) => [ev.messagesSnapshot(messages)]);

const strayValue = fc
  .tuple(fc.constantFrom("message", "tool-call", "future"), fc.constantFrom(...ANY_ID), marker)
  .map(([subtype, id, value]) => [ev.encryptedValue(subtype, id, value)]);

const activity = fc.tuple(marker, marker).map(([a, b]) => [
  ev.activitySnapshot("act", "plan", { text: a }),
  {
    type: "ACTIVITY_DELTA",
    messageId: "act",
    activityType: "plan",
    patch: [{ op: "replace", path: "/text", value: b }],
  },
  {
    type: "ACTIVITY_DELTA",
    messageId: "act",
    activityType: "plan",
    patch: [{ op: "test", path: "/text", value: a }],
  },
]);

const passThrough = marker.map((m) => [
  ev.custom("note", { text: m }),
  ev.raw({ text: m }),
  ev.stateSnapshot({ text: m }),
  ev.stateDelta([{ op: "add", path: "/t", value: m }]),
]);

const unknownMaterial = fc
  .tuple(spanId, marker, marker)
  .map(([id, a, b]) => [
    { type: "REASONING_SUMMARY", messageId: "m1", summary: a },
    ev.reasoningStart(id, { summaryText: b, rawEvent: { text: a } }),
    ev.reasoningEnd(id),
  ]);

const block = fc.oneof(
  explicitReasoning,
  span,
  chunkedReasoning,
  subagentLane,
  text,
  toolCall,
  legacy,
  snapshot,
  strayValue,
  activity,
  passThrough,
  unknownMaterial,
);

const runStart = fc
  .tuple(fc.constantFrom(undefined, "1.0", "2.0", "v-next"), fc.option(marker, { nil: undefined }))
  .map(
    ([version, echoed]) =>
      (run: number) =>
        ev.runStarted(`r${run}`, {
          ...(version && { protocolVersion: version }),
          ...(echoed && {
            input: {
              threadId: "t1",
              runId: `r${run}`,
              messages: [msg.reasoning("m9", echoed, { encryptedValue: echoed })],
            },
          }),
        }),
  );

const run = fc
  .tuple(runStart, fc.array(block, { minLength: 1, maxLength: 5 }), fc.constantFrom("finished", "error"), marker)
  .map(([start, blocks, end, message]) => (index: number) => [
    start(index),
    ...blocks.flat(),
    end === "finished" ? ev.runFinished(`r${index}`) : ev.runError(message),
  ]);

type Mutation = (events: unknown[]) => unknown[];

/** The field corruptions: values the schema rejects, or unknown members; never a marker in an id. */
const CORRUPTIONS: readonly [string, unknown][] = [
  ["delta", 5],
  ["delta", null],
  ["messageId", 7],
  ["role", "assistant"],
  ["subtype", "future"],
  ["subtype", 3],
  ["entityId", undefined],
  ["encryptedValue", { nested: true }],
  ["metadata", null],
  ["type", "REASONING_SUMMARY"],
  ["type", 12],
  ["timestamp", 1.5],
  ["subagentRunId", null],
  ["title", 9],
];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map(
    (n): Mutation =>
      (es) =>
        es.filter((_, i) => i !== n % es.length),
  ),
  fc.nat().map(
    (n): Mutation =>
      (es) =>
        es.length === 0 ? es : es.flatMap((e, i) => (i === n % es.length ? [e, e] : [e])),
  ),
  fc.nat().map((n): Mutation => (es) => {
    if (es.length < 2) return es;
    const i = n % (es.length - 1);
    const copy = es.slice();
    [copy[i], copy[i + 1]] = [copy[i + 1], copy[i]];
    return copy;
  }),
  fc.tuple(fc.nat(), fc.constantFrom(...ANY_ID)).map(
    ([n, id]): Mutation =>
      (es) =>
        es.map((e, i) => {
          if (i !== n % es.length || typeof e !== "object" || e === null) return e;
          const field =
            ["messageId", "toolCallId", "entityId", "subagentRunId", "parentMessageId"].find((f) => f in e) ??
            "messageId";
          return { ...e, [field]: id };
        }),
  ),
  fc.nat().map(
    (n): Mutation =>
      (es) =>
        es.slice(0, Math.max(1, n % (es.length + 1))),
  ),
  fc.tuple(fc.nat(), fc.constantFrom(...CORRUPTIONS)).map(
    ([n, [field, value]]): Mutation =>
      (es) =>
        es.map((e, i) => (i === n % es.length && typeof e === "object" && e !== null ? { ...e, [field]: value } : e)),
  ),
  fc.tuple(fc.nat(), fc.constantFrom<unknown>(null, 42, "RUN_STARTED", [])).map(
    ([n, value]): Mutation =>
      (es) =>
        es.map((e, i) => (i === n % es.length ? value : e)),
  ),
  fc.tuple(fc.nat(), marker).map(
    ([n, m]): Mutation =>
      (es) =>
        es.map((e, i) =>
          i === n % es.length && typeof e === "object" && e !== null ? { ...e, undescribedText: m } : e,
        ),
  ),
);

/** One generated case: its events and the pipeline options to run them with. */
export interface GeneratedCase {
  readonly events: unknown[];
  readonly maxOpenItems?: number;
  readonly initialMessages?: Message[];
}

export const generatedCase: fc.Arbitrary<GeneratedCase> = fc
  .tuple(
    fc.array(run, { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    fc.array(mutation, { maxLength: 3 }),
    fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(1, 2, 4) }),
    fc.option(fc.tuple(messageId, marker, marker), { nil: undefined }),
  )
  .map(([runs, truncated, mutations, maxOpenItems, seed]) => {
    let events: unknown[] = runs.flatMap((r, i) => r(i));
    if (truncated) events = events.slice(0, -1);
    for (const m of mutations) events = m(events);
    return {
      events,
      ...(maxOpenItems !== undefined && { maxOpenItems }),
      ...(seed !== undefined && { initialMessages: [msg.reasoning(seed[0], seed[1], { encryptedValue: seed[2] })] }),
    };
  });
