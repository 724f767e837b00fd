import fc from "fast-check";
import { EventType } from "@ag-ui/core";
import { createEnforceStage } from "../../src/schema/enforce-schema";
import { eventEntry } from "../../src/schema/event-schemas";
import { isCleanHotEvent } from "../../src/schema/fast-path";
import { stripUnknown } from "../../src/schema/strip-unknown";

/**
 * The enforcement fast path (src/schema/fast-path.ts) must agree with zod exactly: for every event
 * of a hot type, `isCleanHotEvent` is true if and only if the full path would forward the event
 * untouched — nothing to strip (`stripUnknown` returns undefined) and the `@ag-ui/core` schema
 * accepts it. Generated events mix right and wrong value types, `null`s, missing fields, extra
 * keys, unknown roles, non-integer and unsafe timestamps.
 */

const HOT_TYPES = [
  EventType.REASONING_MESSAGE_CONTENT,
  EventType.TEXT_MESSAGE_CONTENT,
  EventType.TOOL_CALL_ARGS,
  EventType.REASONING_MESSAGE_CHUNK,
  EventType.TEXT_MESSAGE_CHUNK,
  EventType.TOOL_CALL_CHUNK,
  EventType.TEXT_MESSAGE_START,
  EventType.TEXT_MESSAGE_END,
  EventType.REASONING_START,
  EventType.REASONING_END,
  EventType.REASONING_MESSAGE_START,
  EventType.REASONING_MESSAGE_END,
  EventType.TOOL_CALL_START,
  EventType.TOOL_CALL_END,
  EventType.STEP_STARTED,
  EventType.STEP_FINISHED,
  EventType.REASONING_ENCRYPTED_VALUE,
  EventType.TOOL_CALL_RESULT,
  EventType.RUN_STARTED,
  EventType.RUN_FINISHED,
  EventType.ACTIVITY_SNAPSHOT,
  EventType.ACTIVITY_DELTA,
  EventType.STATE_SNAPSHOT,
  EventType.STATE_DELTA,
] as const;

/** The one-sided cases (fast-path.ts): events the fast path leaves to the full path, whatever it says. */
function leftToFullPath(event: Record<string, unknown>): boolean {
  switch (event.type) {
    case EventType.TOOL_CALL_RESULT:
      return Array.isArray(event.content);
    case EventType.RUN_STARTED:
      return event.protocolVersion !== undefined || event.input !== undefined;
    case EventType.RUN_FINISHED:
      return event.result !== undefined || event.outcome !== undefined || event.usage !== undefined;
    default:
      return false;
  }
}

/** What the full path says: forwarded unchanged and quietly. */
function fullPathClean(event: Record<string, unknown>): boolean {
  const entry = eventEntry(event.type as string)!;
  return stripUnknown(event, entry.plan()) === undefined && entry.schema.safeParse(event).success;
}

const anyValue = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom("assistant", "user", "system", "developer", "tool", "reasoning", "m1", ""),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    -Number.MAX_SAFE_INTEGER - 1,
    1e21,
  ),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant([]),
  fc.constant({}),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

/** Every field any hot type describes, plus a few undescribed ones. */
const FIELDS = [
  "timestamp",
  "rawEvent",
  "metadata",
  "subagentRunId",
  "messageId",
  "toolCallId",
  "delta",
  "role",
  "name",
  "toolCallName",
  "parentMessageId",
  "stepName",
  "subtype",
  "entityId",
  "encryptedValue",
  "threadId",
  "runId",
  "parentRunId",
  "protocolVersion",
  "input",
  "result",
  "outcome",
  "usage",
  "extra",
  "content",
  "activityType",
  "replace",
  "snapshot",
  "patch",
] as const;

/** A JSON Patch, mostly well-formed: every op, with and without its pointers and value, and pointers right and wrong. */
function patch(): fc.Arbitrary<unknown> {
  const pointer = fc.oneof(
    fc.constantFrom("", "/", "/a", "/a/0", "/~0~1", "/a~", "/~2", "a/b", "~1", "/-"),
    fc.stringMatching(/^(\/([a-z~]|~[01])*)*$/),
    fc.integer(),
  );
  const operation = fc.record(
    {
      op: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom("add", "remove", "replace", "move", "copy", "test") },
        { weight: 1, arbitrary: fc.constantFrom("merge", "", 1, null) },
      ),
      path: pointer,
      from: pointer,
      value: fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined), fc.constant({ b: 1 })),
      extra: fc.string({ maxLength: 2 }),
    },
    { requiredKeys: ["op"] },
  );
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(operation, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, {}, [null], [[]], "[]") },
  );
}

/** Mostly well-typed values, so that many generated events are clean and the `true` side is exercised too. */
const plausible: Record<(typeof FIELDS)[number], fc.Arbitrary<unknown>> = {
  timestamp: fc.integer(),
  rawEvent: fc.oneof(fc.constant({ raw: 1 }), fc.string({ maxLength: 3 })),
  metadata: fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  subagentRunId: fc.string({ maxLength: 3 }),
  messageId: fc.string({ maxLength: 3 }),
  toolCallId: fc.string({ maxLength: 3 }),
  // A STATE_DELTA's `delta` is a patch.
  delta: fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 5 }) }, { weight: 1, arbitrary: patch() }),
  role: fc.constantFrom("assistant", "user", "system", "developer", "tool", "reasoning", "critic"),
  name: fc.string({ maxLength: 3 }),
  toolCallName: fc.string({ maxLength: 3 }),
  parentMessageId: fc.string({ maxLength: 3 }),
  stepName: fc.string({ maxLength: 3 }),
  subtype: fc.constantFrom("message", "tool-call", "tool-call-v2", "messages"),
  entityId: fc.string({ maxLength: 3 }),
  encryptedValue: fc.string({ maxLength: 4 }),
  threadId: fc.string({ maxLength: 3 }),
  runId: fc.string({ maxLength: 3 }),
  parentRunId: fc.string({ maxLength: 3 }),
  protocolVersion: fc.constantFrom("1.0.0", "2.0.0", "x"),
  input: fc.constant({
    threadId: "t",
    runId: "r",
    messages: [],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  }),
  result: fc.oneof(fc.string({ maxLength: 3 }), fc.constant({ ok: true })),
  outcome: fc.constant({ type: "success" }),
  usage: fc.constant([]),
  extra: fc.string({ maxLength: 3 }),
  content: fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.constant([{ type: "text", text: "sunny" }]),
    fc.constant([]),
    fc.constant([{ type: "text" }]),
    fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
    fc.constant({ steps: ["a"] }),
  ),
  activityType: fc.string({ maxLength: 3 }),
  replace: fc.oneof(fc.boolean(), fc.constant(null), fc.constant("true")),
  snapshot: fc.oneof(fc.constant(null), fc.integer(), fc.constant({ a: [1] }), fc.constant([])),
  patch: patch(),
};

/** A field left out of the event. */
const absent = Symbol("absent");

/**
 * Events of `types`. Per field, the weights of leaving it out, of a plausible value and of any
 * value; `extraKeys`: undescribed keys too, in about half the events.
 */
const hotEventOf = (
  types: readonly string[],
  [absentWeight, plausibleWeight, anyWeight]: readonly [number, number, number],
  extraKeys = true,
): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .record({
      type: fc.constantFrom(...types),
      // Per field: absent, a plausible value, or anything at all.
      fields: fc.tuple(
        ...FIELDS.map((f) =>
          fc.oneof(
            { weight: absentWeight, arbitrary: fc.constant(absent) },
            { weight: plausibleWeight, arbitrary: plausible[f] },
            { weight: anyWeight, arbitrary: anyValue },
          ),
        ),
      ),
      // Only the fields this type describes, most of the time (extra keys are rarer).
      describedOnly: extraKeys ? fc.boolean() : fc.constant(true),
    })
    .map(({ type, fields, describedOnly }) => {
      const entry = eventEntry(type)!;
      const described = new Set(entry.plan().fields.keys());
      const event: Record<string, unknown> = { type };
      FIELDS.forEach((field, i) => {
        const value = fields[i];
        if (value === absent) return;
        if (describedOnly && !described.has(field)) return;
        event[field] = value;
      });
      return event;
    });

const hotEvent = hotEventOf(HOT_TYPES, [3, 3, 1]);

/** A boolean property (fast-check reports the counterexample): no jest expect per case. */
function agreesWithFullPath(event: Record<string, unknown>, verdict: boolean): boolean {
  // The one-sided cases (fast-path.ts) always take the full path.
  if (leftToFullPath(event)) return !verdict;
  return verdict === fullPathClean(event);
}

describe("enforcement fast path", () => {
  it("R-PROC-6 R-PROC-4: isCleanHotEvent agrees with stripUnknown + zod safeParse on generated hot events", () => {
    let clean = 0;
    fc.assert(
      fc.property(hotEvent, (event) => {
        const verdict = isCleanHotEvent(event, event.type as string);
        if (verdict) clean++;
        return agreesWithFullPath(event, verdict);
      }),
      { numRuns: 20_000 },
    );
    // Both sides of the equivalence were exercised.
    expect(clean).toBeGreaterThan(1_000);
    expect(clean).toBeLessThan(19_000);
  });

  it("R-PROC-6 R-PROC-4: it agrees on activity and state events too, each type clean and not clean many times", () => {
    const types = [
      EventType.ACTIVITY_SNAPSHOT,
      EventType.ACTIVITY_DELTA,
      EventType.STATE_SNAPSHOT,
      EventType.STATE_DELTA,
    ];
    const seen = new Map(types.map((t) => [t as unknown, { clean: 0, not: 0 }]));
    fc.assert(
      fc.property(hotEventOf(types, [1, 12, 1], false), (event) => {
        const verdict = isCleanHotEvent(event, event.type as string);
        seen.get(event.type)![verdict ? "clean" : "not"]++;
        return agreesWithFullPath(event, verdict);
      }),
      { numRuns: 8_000 },
    );
    for (const [type, { clean, not }] of seen) expect([type, clean > 50 && not > 50]).toEqual([type, true]);
  });

  it("R-PROC-6: every event type that is not hot is never answered by the fast path", () => {
    const e = { type: EventType.RUN_ERROR, message: "m" };
    expect(isCleanHotEvent(e, e.type)).toBe(false);
    expect(
      isCleanHotEvent({ type: "TEXT_MESSAGE_CONTENTX", messageId: "m", delta: "d" }, "TEXT_MESSAGE_CONTENTX"),
    ).toBe(false);
  });

  it("R-PROC-2 R-DEP-6: a stripped key, a tolerated null and an unknown role all leave the fast path", () => {
    const base = { type: EventType.TOOL_CALL_CHUNK, toolCallId: "t1", delta: "{" };
    expect(isCleanHotEvent(base, base.type)).toBe(true);
    expect(isCleanHotEvent({ ...base, parentMessageId: null }, base.type)).toBe(false);
    expect(isCleanHotEvent({ ...base, rawEvent: null }, base.type)).toBe(false);
    expect(isCleanHotEvent({ ...base, surprise: 1 }, base.type)).toBe(false);
    const chunk = { type: EventType.TEXT_MESSAGE_CHUNK, messageId: "m1", role: "critic" };
    expect(isCleanHotEvent(chunk, chunk.type)).toBe(false);
    expect(isCleanHotEvent({ ...chunk, role: "user" }, chunk.type)).toBe(true);
  });

  it("R-PROC-6: the stage forwards a clean hot event as the very object, and still fails a malformed one", () => {
    const stage = createEnforceStage();
    const event = { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "m1", delta: "x", timestamp: 5 };
    const r = stage.step(null, event, { index: 3 });
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toBe(event);
    expect(r.warnings).toHaveLength(0);
    expect(() => stage.step(null, { ...event, timestamp: 1.5 }, { index: 4 })).toThrow(
      expect.objectContaining({ code: "MALFORMED_EVENT", eventIndex: 4 }),
    );
  });
});
