/**
 * One message's content (or one tool call's arguments) growing past what a JavaScript string can
 * hold (issue 12, finding 1). Before `maxContentLength`, 11 deltas of 50 MiB completed `events$`
 * holding 10 of them, then a raw `RangeError` escaped the source observer; with metadata on the
 * deltas `events$` errored with that `RangeError`. D-LIMIT: the delta that would pass the bound
 * fails the run with LIMIT_EXCEEDED at that event; nothing delivered is lost, nothing is shortened.
 *
 * The default bound is tested at its real size (2^28 units) with deltas that share one 64 Mi-unit
 * string: concatenation makes rope nodes, so the heap holds that string once. Assertions compare
 * lengths and counts only: a failing `expect` must never print a 256 MiB string.
 */
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  upcastThinking,
  verifyDiscipline,
} from "../../src/pipeline/operators";
import { from, pipe, type OperatorFunction } from "rxjs";
import { DEFAULT_MAX_CONTENT_LENGTH, MAX_CONTENT_LENGTH_BOUND } from "../../src/history/content-limit";
import { createHistoryStage } from "../../src/history/history-stage";
import type { ReasoningHistory } from "../../src/history/types";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { ev } from "../../src/testing/builders";
import { expectProtocolError, failureOf, runFacade, runOperator } from "./support/run";
import { resumable } from "../../src/resilience";

/** The six operators chained, as the facade runs them (deriveHistory last: its output is the history). */
function chained(maxContentLength?: number): OperatorFunction<unknown, ReasoningHistory> {
  const options = { producer: "hostile-test", onWarning: () => {}, maxContentLength };
  return pipe(
    upcastThinking(options),
    enforceSchema(options),
    expandChunks(options),
    verifyDiscipline(options),
    deriveHistory(options),
  );
}

/** Content (or arguments) length of the one item a stream streams into the history, by kind. */
function heldLength(history: ReasoningHistory, kind: "message" | "tool-call"): number {
  const message = history.messages[history.messages.length - 1] as {
    content?: unknown;
    toolCalls?: { function: { arguments: string } }[];
  };
  if (kind === "message") return (message.content as string).length;
  return message.toolCalls![0]!.function.arguments.length;
}

interface Lane {
  readonly name: string;
  readonly kind: "message" | "tool-call";
  readonly id: string;
  readonly type: string;
  readonly open: () => unknown[];
  readonly delta: (text: string, extra?: Record<string, unknown>) => unknown;
  readonly close: () => unknown[];
}

const LANES: readonly Lane[] = [
  {
    name: "reasoning message content",
    kind: "message",
    id: "m1",
    type: "REASONING_MESSAGE_CONTENT",
    open: () => [ev.reasoningStart("s1"), ev.reasoningMessageStart("m1")],
    delta: (text, extra) => ev.reasoningMessageContent("m1", text, extra),
    close: () => [ev.reasoningMessageEnd("m1"), ev.reasoningEnd("s1")],
  },
  {
    name: "text message content",
    kind: "message",
    id: "a1",
    type: "TEXT_MESSAGE_CONTENT",
    open: () => [ev.textStart("a1")],
    delta: (text, extra) => ev.textContent("a1", text, extra),
    close: () => [ev.textEnd("a1")],
  },
  {
    name: "tool call arguments",
    kind: "tool-call",
    id: "tc1",
    type: "TOOL_CALL_ARGS",
    open: () => [ev.toolCallStart("tc1")],
    delta: (text, extra) => ev.toolCallArgs("tc1", text, extra),
    close: () => [ev.toolCallEnd("tc1")],
  },
  {
    name: "reasoning chunks",
    kind: "message",
    id: "c1",
    type: "REASONING_MESSAGE_CONTENT",
    open: () => [ev.reasoningStart("s1"), ev.reasoningChunk("c1", "")],
    delta: (text, extra) => ev.reasoningChunk("c1", text, extra),
    close: () => [ev.reasoningEnd("s1")],
  },
  {
    name: "tool call chunks",
    kind: "tool-call",
    id: "k1",
    type: "TOOL_CALL_ARGS",
    open: () => [ev.toolCallChunk("k1", "search", "")],
    delta: (text, extra) => ev.toolCallChunk("k1", undefined, text, extra),
    close: () => [],
  },
];

function isChunk(event: unknown): boolean {
  return (event as { type: string }).type.endsWith("_CHUNK");
}

/** RUN_STARTED, the opener(s), `deltas`, the closer(s), RUN_FINISHED; and the index of each delta. */
function stream(lane: Lane, deltas: readonly unknown[]): { events: unknown[]; firstDelta: number } {
  const open = [ev.runStarted(), ...lane.open()];
  return { events: [...open, ...deltas, ...lane.close(), ev.runFinished()], firstDelta: open.length };
}

describe("D-LIMIT maxContentLength: content past the bound fails the run, never a RangeError or a silent loss", () => {
  it.each(LANES)(
    "D-LIMIT: $name — with the default bound (2^28 units) the delta that would pass it fails with LIMIT_EXCEEDED",
    (lane) => {
      expect(DEFAULT_MAX_CONTENT_LENGTH).toBe(2 ** 28);
      const quarter = "a".repeat(DEFAULT_MAX_CONTENT_LENGTH / 4);
      const { events, firstDelta } = stream(lane, [
        lane.delta(quarter),
        lane.delta(quarter),
        lane.delta(quarter),
        lane.delta(quarter),
        lane.delta("b"),
      ]);
      const run = runFacade(events);
      const error = expectProtocolError(run.error);
      expect({ code: error.code, rule: error.rule, eventIndex: error.eventIndex, ids: error.ids }).toEqual({
        code: "LIMIT_EXCEEDED",
        rule: "D-LIMIT",
        eventIndex: firstDelta + 4,
        ids: [lane.id],
      });
      // Everything before the failing delta was delivered, and the history holds all of it, unshortened.
      expect(run.events.length).toBe(runFacade(events.slice(0, firstDelta + 4)).events.length);
      expect(heldLength(run.history, lane.kind)).toBe(DEFAULT_MAX_CONTENT_LENGTH);
    },
  );

  const SMALL = 10;
  // With metadata every delta takes the steps; without, the facade's delta lane takes them.
  const VARIANTS = LANES.flatMap((lane) => [
    { lane, how: "plain deltas (the facade's delta lane)", extra: undefined },
    { lane, how: "deltas with metadata (the steps)", extra: { metadata: { k: 1 } } },
  ]);

  it.each(VARIANTS)(
    "D-LIMIT: $lane.name, $how — facade and chained operators fail at the same delta, naming lengths only",
    ({ lane, extra }) => {
      const deltas = [
        lane.delta("12345", extra),
        lane.delta("6789", extra),
        lane.delta("0", extra),
        lane.delta("SECRET", extra),
      ];
      const { events, firstDelta } = stream(lane, deltas);
      const expected = { code: "LIMIT_EXCEEDED", rule: "D-LIMIT", eventIndex: firstDelta + 3, eventType: lane.type };

      const facade = runFacade(events, { maxContentLength: SMALL });
      expect(failureOf(facade.error)).toEqual(expected);
      expect(expectProtocolError(facade.error).ids).toEqual([lane.id]);
      expect(expectProtocolError(facade.error).message).not.toContain("SECRET");
      expect(expectProtocolError(facade.error).message).toContain(`maxContentLength (${SMALL})`);
      expect(facade.events).toEqual(runFacade(events.slice(0, firstDelta + 3)).events);
      expect(heldLength(facade.history, lane.kind)).toBe(SMALL);

      // Chained operators count their own input (an expanded chunk stream shifts indexes downstream).
      const operators = runOperator(events, chained(SMALL));
      expect(failureOf(operators.error)).toEqual(
        lane.open().some(isChunk) ? { ...expected, eventIndex: expect.any(Number) } : expected,
      );
      expect(heldLength(operators.out[operators.out.length - 1]!, lane.kind)).toBe(SMALL);
    },
  );

  it.each(LANES)("D-LIMIT: $name — content of exactly maxContentLength passes", (lane) => {
    const { events } = stream(lane, [lane.delta("12345"), lane.delta("67890"), lane.delta("")]);
    const run = runFacade(events, { maxContentLength: 10 });
    expect(run.error).toBeUndefined();
    expect(heldLength(run.history, lane.kind)).toBe(10);
  });

  it("D-LIMIT: the bound counts the whole content of a reopened message, also after a resume", () => {
    const first = [
      ev.runStarted(),
      ev.textStart("a1"),
      ev.textContent("a1", "123456"),
      ev.textEnd("a1"),
      ev.runFinished(),
    ];
    const p = reasoningPipeline(from(first), { producer: "hostile-test", maxContentLength: 10, onWarning: () => {} });
    p.events$.subscribe({ error: () => {} });
    const resumed = runFacade(
      [
        ev.runStarted("r2"),
        ev.textStart("a1"),
        ev.textContent("a1", "7890"),
        ev.textContent("a1", "x"),
        ev.textEnd("a1"),
        ev.runFinished("r2"),
      ],
      {
        resumeFrom: resumable(p.exportState()),
        maxContentLength: 10,
      },
    );
    expect(failureOf(resumed.error)).toEqual({
      code: "LIMIT_EXCEEDED",
      rule: "D-LIMIT",
      eventIndex: first.length + 3,
      eventType: "TEXT_MESSAGE_CONTENT",
    });
  });

  it.each([-1, 1.5, NaN, Infinity, MAX_CONTENT_LENGTH_BOUND + 1, "10"])(
    "D-LIMIT: maxContentLength %p is refused at creation with a RangeError",
    (bad) => {
      expect(() => createHistoryStage({ maxContentLength: bad as number })).toThrow(RangeError);
      expect(() => reasoningPipeline(from([]), { maxContentLength: bad as number })).toThrow(/maxContentLength/);
    },
  );
});
