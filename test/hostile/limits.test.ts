/**
 * 100,000 items opened and never closed (issue 6, "Hostile and unusual input"): `maxOpenItems`
 * (default 10,000, all families together) fails the run with LIMIT_EXCEEDED before any stage's
 * state grows further; the chunk stage and the history do not blow up first, and the source is not
 * read past the failing event.
 */
import { verifyDiscipline } from "../../src/pipeline/operators";
import { from } from "rxjs";
import { ev } from "../../src/testing/builders";
import { expectProtocolError, failureOf, runFacade, runOperator } from "./support/run";

const HOSTILE_OPENS = 100_000;
const DEFAULT_LIMIT = 10_000;

/** A lazy source of RUN_STARTED then `count` openers, counting how many events the pipeline pulled. */
function openers(count: number, open: (i: number) => unknown): { source: Iterable<unknown>; pulled: () => number } {
  let pulled = 0;
  function* source(): Generator<unknown> {
    pulled++;
    yield ev.runStarted();
    for (let i = 0; i < count; i++) {
      pulled++;
      yield open(i);
    }
  }
  return { source: source(), pulled: () => pulled };
}

const FAMILIES: readonly {
  readonly family: string;
  readonly open: (i: number) => unknown;
  readonly type: string;
  readonly messages: number;
}[] = [
  { family: "reasoning spans", open: (i) => ev.reasoningStart(`s${i}`), type: "REASONING_START", messages: 0 },
  { family: "steps", open: (i) => ev.stepStarted(`step${i}`), type: "STEP_STARTED", messages: 0 },
  { family: "subagent invocations", open: (i) => ev.subagentStarted(`sub${i}`), type: "SUBAGENT_STARTED", messages: 0 },
  {
    family: "reasoning messages",
    open: (i) => ev.reasoningMessageStart(`m${i}`),
    type: "REASONING_MESSAGE_START",
    messages: DEFAULT_LIMIT,
  },
  { family: "text messages", open: (i) => ev.textStart(`a${i}`), type: "TEXT_MESSAGE_START", messages: DEFAULT_LIMIT },
  { family: "tool calls", open: (i) => ev.toolCallStart(`tc${i}`), type: "TOOL_CALL_START", messages: DEFAULT_LIMIT },
  {
    // One chunk stream per subagent lane: every chunk opens a new lane, and lanes never close one another.
    family: "reasoning chunk streams in 100,000 lanes",
    open: (i) => ev.reasoningChunk(`c${i}`, "x", { subagentRunId: `lane${i}` }),
    type: "REASONING_MESSAGE_START",
    messages: DEFAULT_LIMIT,
  },
  {
    family: "mixed families",
    open: (i) =>
      [
        ev.reasoningStart(`s${i}`),
        ev.stepStarted(`step${i}`),
        ev.toolCallStart(`tc${i}`),
        ev.reasoningMessageStart(`m${i}`),
      ][i % 4],
    type: "REASONING_START",
    messages: DEFAULT_LIMIT / 2,
  },
];

describe(`${HOSTILE_OPENS.toLocaleString("en-US")} items opened and never closed`, () => {
  it.each(FAMILIES)(
    "LIMIT_EXCEEDED: $family fail at the 10,001st open item with the default maxOpenItems",
    ({ open, type, messages }) => {
      const { source, pulled } = openers(HOSTILE_OPENS, open);
      const run = runFacade(source);
      const error = expectProtocolError(run.error);
      // RUN_STARTED is #0, so the 10,001st opener is source event #10,001.
      expect({ code: error.code, rule: error.rule, eventIndex: error.eventIndex, eventType: error.eventType }).toEqual({
        code: "LIMIT_EXCEEDED",
        rule: "D-LIMIT",
        eventIndex: DEFAULT_LIMIT + 1,
        eventType: type,
      });
      expect(error.message).toContain(`maxOpenItems (${DEFAULT_LIMIT} items are open)`);
      // The source was not read past the failing event.
      expect(pulled()).toBe(DEFAULT_LIMIT + 2);
      // What was delivered stays: the history holds the messages opened before the limit, all listed as incomplete.
      expect(run.history.messages.length).toBe(messages);
      expect(run.history.incomplete.length).toBe(messages);
    },
  );

  it("LIMIT_EXCEEDED: maxOpenItems is the caller's bound; closing an item frees its slot", () => {
    const { source } = openers(1_000, (i) => (i % 2 === 0 ? ev.reasoningStart(`s${i}`) : ev.reasoningEnd(`s${i - 1}`)));
    expect(failureOf(runFacade(source, { maxOpenItems: 1 }).error)).toEqual({
      code: "RUN_TRUNCATED",
      rule: "D-TRUNC",
      eventIndex: 1_001,
      eventType: "<end of stream>",
    });
    const limited = openers(HOSTILE_OPENS, (i) => ev.reasoningStart(`s${i}`));
    const run = runFacade(limited.source, { maxOpenItems: 100 });
    expect(failureOf(run.error)).toEqual({
      code: "LIMIT_EXCEEDED",
      rule: "D-LIMIT",
      eventIndex: 101,
      eventType: "REASONING_START",
    });
    expect(limited.pulled()).toBe(102);
  });

  it("LIMIT_EXCEEDED: verifyDiscipline alone enforces the same default bound", () => {
    const events = [
      ev.runStarted(),
      ...Array.from({ length: DEFAULT_LIMIT + 5 }, (_, i) => ev.stepStarted(`step${i}`)),
    ];
    const run = runOperator(events, verifyDiscipline() as never);
    expect(failureOf(run.error)).toEqual({
      code: "LIMIT_EXCEEDED",
      rule: "D-LIMIT",
      eventIndex: DEFAULT_LIMIT + 1,
      eventType: "STEP_STARTED",
    });
    expect(run.out.length).toBe(DEFAULT_LIMIT + 1);
  });

  it("D-TRUNC: a stream cut with 10,000 items open names at most 50 of them, in a message of bounded length", () => {
    const events = [
      ev.runStarted(),
      ...Array.from({ length: DEFAULT_LIMIT }, (_, i) => ev.reasoningStart(`span-${"s".repeat(200)}-${i}`)),
    ];
    const run = runFacade(from(events));
    const error = expectProtocolError(run.error);
    expect({ code: error.code, ids: error.ids.length }).toEqual({ code: "RUN_TRUNCATED", ids: 50 });
    expect(error.message).toContain("10000 open items, the first 50 listed");
    // Each listed id is named twice: in `ids`, and with its family in the text (a shared id once per family).
    expect(error.message.length).toBeLessThan(50 * 2 * (130 + "reasoning span ".length) + 500);
  });
});
