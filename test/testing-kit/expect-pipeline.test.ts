import { of, Subject } from "rxjs";
import { reasoningPipeline, ReasoningProtocolError } from "../../src";
import {
  alphabet,
  createTestScheduler,
  ev,
  expectPipeline,
  historyOf as timedHistoryOf,
  msg,
  parseDiagram,
  protocolErrorWith,
  runPipeline,
  sequentialIds,
  TEST_PRODUCER,
  warningWith,
} from "../../src/testing";

import { anyDurations } from "../support/clock";

// Expected histories here take any durations (the D-DURATION tests pin them).
const historyOf = (...args: Parameters<typeof timedHistoryOf>) => anyDurations(timedHistoryOf(...args));

const options = () => ({ producer: TEST_PRODUCER, idFactory: sequentialIds(), onWarning: () => {} });
/** Whether `run` failed with a jest assertion (not with some other error). */
function assertionFailureOf(run: () => void): boolean {
  try {
    run();
  } catch (e) {
    // The kit's default assertion (node's AssertionError), or jest's when passed to createTestScheduler.
    const error = e as { name?: string; matcherResult?: { pass?: boolean } };
    return error.name === "AssertionError" || error.matcherResult?.pass === false;
  }
  return false;
}
const open = (id: string) => ({ kind: "message" as const, id, reason: "open" as const });

describe("testing kit: expectPipeline (events$, history$ and warnings$ in one diagram)", () => {
  it("#36 R-STREAM-12: one labelled diagram asserts all three views of a chunked reasoning message", () => {
    createTestScheduler().run((helpers) => {
      const p = reasoningPipeline(helpers.cold("R k--- K F--- |", alphabet), options());
      expectPipeline(helpers, p).toBe(
        `
        events:   R (<c) C (>F) |
        history:  0 1--- 2 3--- |
        warnings: - ---- - ---- |
        `,
        {
          ...alphabet,
          0: historyOf(),
          1: historyOf([msg.reasoning("m1", "Let me")], { incomplete: [open("m1")] }),
          2: historyOf([msg.reasoning("m1", "Let me think.")], { incomplete: [open("m1")] }),
          3: historyOf([msg.reasoning("m1", "Let me think.")]),
        },
      );
    });
  });

  it("R-REASON-9: the events row ends in # with protocolErrorWith(); history keeps what was delivered (R-RUN-13)", () => {
    createTestScheduler().run((helpers) => {
      const p = reasoningPipeline(helpers.cold("R < c > C |", alphabet), options());
      expectPipeline(helpers, p).toBe(
        { events: "R < c > #", history: "0 1 2 3 |", warnings: "- - - - |" },
        {
          ...alphabet,
          0: historyOf(),
          1: historyOf([msg.reasoning("m1")], { incomplete: [open("m1")] }),
          2: historyOf([msg.reasoning("m1", "Let me")], { incomplete: [open("m1")] }),
          3: historyOf([msg.reasoning("m1", "Let me")]),
        },
        protocolErrorWith("ORPHAN_CONTENT", {
          rule: "R-REASON-9",
          eventIndex: 4,
          eventType: "REASONING_MESSAGE_CONTENT",
          ids: ["m1"],
        }),
      );
    });
  });

  it("R-PROC-1: warningWith() pins a warning's code and fields, not its prose", () => {
    createTestScheduler().run((helpers) => {
      const p = reasoningPipeline(helpers.cold("R ? F |", alphabet), options());
      expectPipeline(helpers, p).toBe(
        { events: "R - F |", warnings: "- w - |" },
        { ...alphabet, w: warningWith("UNKNOWN_EVENT_TYPE", { eventIndex: 1, eventType: "REASONING_SUMMARY" }) },
      );
    });
  });

  it("a wrong row fails the test (the helper can fail)", () => {
    const wrongHistory = () =>
      createTestScheduler().run((helpers) => {
        const p = reasoningPipeline(helpers.cold("R k F |", alphabet), options());
        expectPipeline(helpers, p).toBe({ events: "R (<c) F |", history: "0 - - |" }, { ...alphabet, 0: historyOf() });
      });
    expect(assertionFailureOf(wrongHistory)).toBe(true);
    const wrongWarnings = () =>
      createTestScheduler().run((helpers) => {
        const p = reasoningPipeline(helpers.cold("R ? F |", alphabet), options());
        expectPipeline(helpers, p).toBe({ warnings: "- - - |" }, alphabet);
      });
    expect(assertionFailureOf(wrongWarnings)).toBe(true);
  });

  it("a diagram asserting nothing (no row, a misspelt row, a row not a string) is refused, not passed", () => {
    const toBe = (diagram: unknown) =>
      createTestScheduler().run((helpers) => {
        const p = reasoningPipeline(helpers.cold("R F |", alphabet), options());
        expectPipeline(helpers, p).toBe(diagram as never, alphabet);
      });
    for (const nothing of [{}, "\n  \n", { events: undefined }, null, 5])
      expect(() => toBe(nothing)).toThrow(
        'agui-reasoning/testing: expectPipeline needs at least one of "events", "history", "warnings"',
      );
    expect(() => toBe({ event: "R F |" })).toThrow('diagram row "event" is not a string "events", "history" or');
    expect(() => toBe({ events: "R F |", warning: "- - |" })).toThrow('diagram row "warning" is not');
    expect(() => toBe({ events: ["R F |"] })).toThrow('diagram row "events" is not a string');
  });

  it("a pipeline whose events row is left out is still started (history and warnings are asserted)", () => {
    createTestScheduler().run((helpers) => {
      const p = reasoningPipeline(helpers.cold("R h F |", alphabet), options());
      expectPipeline(helpers, p).toBe(
        { history: "0 1 2 |" },
        {
          0: historyOf(),
          1: historyOf([msg.assistant("a1", "Hello")], { incomplete: [open("a1")] }),
          2: historyOf([msg.assistant("a1", "Hello")]),
        },
      );
    });
  });

  it("parseDiagram reads labelled rows, ignores blank lines, and rejects anything else", () => {
    expect(parseDiagram("\n  events:  a b |\n\n  warnings: - - |\n")).toEqual({
      events: "  a b |",
      warnings: " - - |",
    });
    expect(() => parseDiagram("events: a |\nevents: b |")).toThrow('row "events" appears twice');
    expect(() => parseDiagram("output: a |")).toThrow('diagram line "output: a |" is not');
  });
});

describe("testing kit: protocolErrorWith() and warningWith()", () => {
  const failure = runPipeline([ev.runStarted(), ev.reasoningEnd("s9")]).error;

  it("R-REASON-10: protocolErrorWith matches the code and the given fields only", () => {
    expect(failure).toBeInstanceOf(ReasoningProtocolError);
    expect(failure).toEqual(protocolErrorWith("ORPHAN_END"));
    expect(failure).toEqual(protocolErrorWith("ORPHAN_END", { rule: "R-REASON-10", eventIndex: 1, ids: ["s9"] }));
    expect(failure).not.toEqual(protocolErrorWith("ORPHAN_CONTENT"));
    expect(failure).not.toEqual(protocolErrorWith("ORPHAN_END", { eventIndex: 0 }));
    expect(new Error("ORPHAN_END")).not.toEqual(protocolErrorWith("ORPHAN_END"));
  });

  it("warningWith matches code and fields, ignoring the message", () => {
    const w = { code: "UNKNOWN_ENTITY", message: "prose", ids: ["x"], lossy: true };
    expect(w).toEqual(warningWith("UNKNOWN_ENTITY"));
    expect(w).toEqual(warningWith("UNKNOWN_ENTITY", { ids: ["x"], lossy: true }));
    expect(w).not.toEqual(warningWith("UNKNOWN_ENTITY", { ids: ["y"] }));
    expect(w).not.toEqual(warningWith("STRIPPED_PROPERTY"));
  });

  it("D-WARN: a code outside the catalogue is refused when the matcher is made (it would match nothing, and with .not anything)", () => {
    // @ts-expect-error not an error code
    expect(() => protocolErrorWith("ORPHAN_ENDD")).toThrow(
      new TypeError('agui-reasoning/testing: protocolErrorWith\'s code "ORPHAN_ENDD" is not one of ERROR_CODES'),
    );
    // A warning code is no error code, and the reverse.
    // @ts-expect-error not an error code
    expect(() => protocolErrorWith("UNKNOWN_ENTITY")).toThrow(
      'protocolErrorWith\'s code "UNKNOWN_ENTITY" is not one of ERROR_CODES',
    );
    // @ts-expect-error not a warning code
    expect(() => warningWith("UNKNOWN_ENTTY")).toThrow(
      new TypeError('agui-reasoning/testing: warningWith\'s code "UNKNOWN_ENTTY" is not one of WARNING_CODES'),
    );
    // @ts-expect-error not a warning code
    expect(() => warningWith("ORPHAN_END")).toThrow('warningWith\'s code "ORPHAN_END" is not one of WARNING_CODES');
  });
});

describe("testing kit: runPipeline", () => {
  it("R-STREAM-7: collects events, every history state and the warnings of a synchronous run", () => {
    const run = runPipeline([
      ev.runStarted(),
      ev.reasoningChunk("m1", "Let me"),
      { type: "REASONING_SUMMARY" },
      ev.runFinished(),
    ]);
    expect(run.error).toBeUndefined();
    expect(run.events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(run.histories).toEqual([
      historyOf(),
      historyOf([msg.reasoning("m1", "Let me")], { incomplete: [open("m1")] }),
      historyOf([msg.reasoning("m1", "Let me")]),
    ]);
    expect(run.history).toBe(run.histories[2]);
    expect(run.warnings.map((w) => w.code)).toEqual(["UNKNOWN_EVENT_TYPE"]);
  });

  it("D-TRUNC: a failure is returned, not thrown, with what was delivered before it", () => {
    const run = runPipeline(of(ev.runStarted(), ev.reasoningChunk("m1", "Let")));
    expect(run.error).toEqual(protocolErrorWith("RUN_TRUNCATED", { eventIndex: 2, ids: ["m1"] }));
    expect(run.history).toEqual(
      historyOf([msg.reasoning("m1", "Let")], { incomplete: [{ kind: "message", id: "m1", reason: "truncated" }] }),
    );
  });

  it("D-THINK-IDS: legacy ids are deterministic by default (think-1, think-2, …)", () => {
    const run = runPipeline([
      ev.runStarted(),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("hm"),
      ev.thinkingTextMessageEnd(),
      ev.runFinished(),
    ]);
    expect(run.history.messages).toEqual([msg.reasoning("think-1", "hm")]);
  });

  it("an asynchronous source is refused with a clear error", () => {
    createTestScheduler().run(({ cold }) => {
      expect(() => runPipeline(cold("a |", { a: ev.runStarted() }))).toThrow("needs a source that ends synchronously");
    });
  });

  it("an asynchronous source it refuses is let go by all three views", () => {
    const source = new Subject<unknown>();
    expect(() => runPipeline(source)).toThrow("needs a source that ends synchronously");
    expect(source.observed).toBe(false);
  });
});
