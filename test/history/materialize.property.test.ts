import fc from "fast-check";
import { countingClock, fixedClock } from "../support/clock";
import type { AguiEvent } from "../../src/core/types";
import { createHistoryStage } from "../../src/history/history-stage";
import type { Conversation } from "../../src/history/conversation";
import { spaceOf } from "../../src/history/table";
import { historyStateToJSON } from "../../src/resume/history-codec";

/**
 * The published history is built lazily from the persistent list, reusing the previous published
 * array when only one slot changed. Whatever the event sequence and whenever the history is read,
 * what is published must equal the list, the indexes must point at the right messages, and reading
 * (or not) must never change the outcome.
 */

const ID = fc.constantFrom("a", "b", "c", "__proto__");
const CALL = fc.constantFrom("t1", "t2");
const DELTA = fc.constantFrom("", "x", "yz");

const event: fc.Arbitrary<AguiEvent> = fc.oneof(
  ID.map((messageId) => ({ type: "REASONING_MESSAGE_START", messageId, role: "reasoning" })),
  fc.tuple(ID, DELTA).map(([messageId, delta]) => ({ type: "REASONING_MESSAGE_CONTENT", messageId, delta })),
  ID.map((messageId) => ({ type: "REASONING_MESSAGE_END", messageId })),
  ID.map((messageId) => ({ type: "TEXT_MESSAGE_START", messageId })),
  fc
    .tuple(ID, DELTA)
    .map(([messageId, delta]) => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta, metadata: { d: delta } })),
  ID.map((messageId) => ({ type: "TEXT_MESSAGE_END", messageId })),
  fc.tuple(CALL, fc.option(ID, { nil: undefined })).map(([toolCallId, parentMessageId]) => ({
    type: "TOOL_CALL_START",
    toolCallId,
    toolCallName: "f",
    ...(parentMessageId === undefined ? {} : { parentMessageId }),
  })),
  fc.tuple(CALL, DELTA).map(([toolCallId, delta]) => ({ type: "TOOL_CALL_ARGS", toolCallId, delta })),
  CALL.map((toolCallId) => ({ type: "TOOL_CALL_END", toolCallId })),
  fc
    .tuple(fc.constantFrom("r1", "r2"), CALL)
    .map(([messageId, toolCallId]) => ({ type: "TOOL_CALL_RESULT", messageId, toolCallId, content: "ok" })),
  fc
    .tuple(fc.constantFrom("message", "tool-call"), fc.oneof(ID, CALL), fc.string())
    .map(([subtype, entityId, encryptedValue]) => ({
      type: "REASONING_ENCRYPTED_VALUE",
      subtype,
      entityId,
      encryptedValue,
    })),
  fc.subarray(["a", "b", "c", "n"]).chain((ids) =>
    fc.tuple(...ids.map(() => fc.constantFrom("assistant", "reasoning", "user"))).map((roles) => ({
      type: "MESSAGES_SNAPSHOT",
      messages: ids.map((id, i) => ({ id, role: roles[i], content: `s-${id}` })),
    })),
  ),
  ID.map((messageId) => ({ type: "ACTIVITY_SNAPSHOT", messageId, activityType: "t", content: { n: 1 } })),
  fc.constant({ type: "RUN_ERROR", message: "x" }),
  fc.constant({ type: "RUN_STARTED", threadId: "t", runId: "r" }),
  fc.constantFrom("s1", "s2").map((messageId) => ({ type: "REASONING_START", messageId })),
  fc.constantFrom("s1", "s2").map((messageId) => ({ type: "REASONING_END", messageId })),
);

/** Runs the events (skipping rejected ones), reading the history where `reads` says so. */
function replay(events: readonly AguiEvent[], reads: readonly boolean[]): Conversation {
  const stage = createHistoryStage({ producer: "p", scheduler: countingClock() });
  let state = stage.init() as Conversation;
  events.forEach((e, index) => {
    const before = state.messages.toArray();
    try {
      state = stage.step(state, e, { index }).state as Conversation;
    } catch {
      // A rejected event leaves the state as it was.
      expect(state.messages.toArray()).toEqual(before);
      return;
    }
    if (reads[index]) expect(state.history.messages).toEqual(state.messages.toArray());
  });
  return state;
}

describe("lazy publication (property)", () => {
  it("R-STATE-4: published messages equal the list, indexes stay exact, and reading never changes the result", () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 60 }),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        (events, reads) => {
          const lazy = replay(events, reads);
          const eager = replay(
            events,
            reads.map(() => true),
          );
          const never = replay(
            events,
            reads.map(() => false),
          );
          expect(lazy.history).toEqual(eager.history);
          expect(never.history).toEqual(eager.history);
          const messages = lazy.history.messages;
          messages.forEach((m, i) => {
            const last = messages.map((x) => x.id).lastIndexOf(m.id);
            if (last === i) expect(lazy.positionOf(m.id)).toBe(i);
            if (m.role === "assistant")
              for (const c of m.toolCalls ?? []) expect(lazy.parts.toolCallHolder.get(c.id)).toBe(m.id);
          });
          for (const item of lazy.history.incomplete) {
            expect(
              item.kind === "message" ? lazy.positionOf(item.id) !== undefined : lazy.parts.toolCallHolder.has(item.id),
            ).toBe(true);
          }
          for (const r of lazy.history.issuers) {
            expect(lazy.parts.issuers.slotOf(r.entityId, spaceOf(r.subtype))).toBe(lazy.history.issuers.indexOf(r));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * One event of each kind for each id: what stepping a version with it gives (or the error code) is
 * what that version's lookups answer (is `a` open, where is it, who holds `t1`, ...).
 */
const PROBES: readonly AguiEvent[] = [
  ...["a", "b", "c", "n", "r1"].flatMap((messageId) => [
    { type: "REASONING_MESSAGE_START", messageId, role: "reasoning" },
    { type: "TEXT_MESSAGE_CONTENT", messageId, delta: "p" },
    { type: "REASONING_MESSAGE_END", messageId },
    { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: messageId, encryptedValue: "v" },
  ]),
  ...["t1", "t2"].flatMap((toolCallId) => [
    { type: "TOOL_CALL_START", toolCallId, toolCallName: "f", parentMessageId: "a" },
    { type: "TOOL_CALL_ARGS", toolCallId, delta: "p" },
    { type: "TOOL_CALL_END", toolCallId },
    { type: "TOOL_CALL_RESULT", messageId: "r1", toolCallId, content: "again" },
  ]),
  { type: "REASONING_END", messageId: "s1" },
  { type: "RUN_ERROR", message: "x" },
];

/** A version as a test sees it from outside: its history, its exported state, and how it answers each probe. */
function observe(stage: ReturnType<typeof createHistoryStage>, version: Conversation): unknown {
  const probed = PROBES.map((probe, index) => {
    try {
      const next = stage.step(version, probe, { index }).state;
      return { history: structuredClone(next.history), state: historyStateToJSON(next) };
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  });
  return { history: structuredClone(version.history), state: historyStateToJSON(version), probed };
}

describe("every version keeps its own lookups (property)", () => {
  it("issue 20: an older version stays exactly as published — its history, its exported state and every lookup through its index — after any later events", () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 40 }),
        fc.array(event, { minLength: 1, maxLength: 40 }),
        (first, later) => {
          // A fixed clock: a version stepped again reads the same instants (D-DURATION).
          const stage = createHistoryStage({ producer: "p", scheduler: fixedClock() });
          const run = (from: Conversation, events: readonly AguiEvent[]): Conversation =>
            events.reduce((state, e, index) => {
              try {
                return stage.step(state, e, { index }).state as Conversation;
              } catch {
                return state;
              }
            }, from);
          const old = run(stage.init() as Conversation, first);
          const published = old.history;
          const seen = observe(stage, old);
          run(old, later);
          expect(old.history).toBe(published);
          expect(observe(stage, old)).toEqual(seen);
        },
      ),
      { numRuns: 300 },
    );
  });
});
