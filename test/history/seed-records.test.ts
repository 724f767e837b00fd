/**
 * A seed's records that name nothing its messages hold (D-PATHS, D-KEEPER, D-DURATION). The pipeline
 * never derives one (a snapshot drops them; the middleware drops those of a message the application
 * no longer sends), but an application's own store can keep the records of a message it deleted.
 * Every way in drops them alike, and none attaches to a later message reusing the id.
 */
import { EMPTY, Subject, lastValueFrom, toArray, type Observable } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import { deriveHistory, reasoningMiddleware, reasoningPipeline, type ReasoningHistory } from "../../src";
import { ev } from "../../src/testing/builders";
import { runPipeline, TEST_PRODUCER } from "../../src/testing/run-pipeline";

/** "gone" was a reasoning message (with a span), "c-gone" a tool call: both deleted by the app, their records kept. */
const seed: ReasoningHistory = {
  messages: [
    { id: "u1", role: "user", content: "hi" },
    { id: "r1", role: "reasoning", content: "kept" },
  ],
  incomplete: [
    { kind: "message", id: "gone", reason: "truncated" },
    { kind: "tool-call", id: "c-gone", reason: "abandoned" },
  ],
  issuers: [
    { subtype: "message", entityId: "gone", issuer: "https://other.example/agent" },
    { subtype: "tool-call", entityId: "c-gone", issuer: TEST_PRODUCER },
  ],
  durations: [
    { kind: "span", id: "s-gone", startedAt: 1, startObserved: false, endedAt: 9, endObserved: false },
    { kind: "message", id: "gone", startedAt: 2, startObserved: false, spanId: "s-gone" },
    { kind: "message", id: "r1", startedAt: 3, startObserved: false, endedAt: 4, endObserved: false },
  ],
};

/** What every way in holds of `seed`: its messages, and only the records of what they hold. */
const held: ReasoningHistory = {
  messages: seed.messages,
  incomplete: [],
  issuers: [],
  durations: [seed.durations[2]!],
};

const input = (messages: RunAgentInput["messages"]): RunAgentInput => ({
  threadId: "t1",
  runId: "r1",
  messages,
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
});

describe("D-PATHS: records a seed holds of no message", () => {
  it("the facade, deriveHistory and the middleware each hold the seed without them", async () => {
    const facade = reasoningPipeline(EMPTY, { producer: TEST_PRODUCER, initialHistory: seed, onWarning: () => {} });
    expect(facade.history).toEqual(held);

    const derived = await lastValueFrom(
      EMPTY.pipe(deriveHistory({ producer: TEST_PRODUCER, initialHistory: seed }), toArray()),
    );
    expect(derived).toEqual([held]);

    const histories: ReasoningHistory[] = [];
    const middleware = reasoningMiddleware({
      producer: TEST_PRODUCER,
      initialHistory: seed,
      onWarning: () => {},
      onHistory: (h) => histories.push(h),
    });
    expect(middleware.history).toEqual(held);
    const source = new Subject<unknown>();
    (middleware(input([...seed.messages]), { run: () => source }) as Observable<unknown>).subscribe({
      error: () => {},
    });
    source.next(ev.runStarted("r1"));
    expect(histories[0]).toEqual(held);
  });

  it("a message reusing the id starts its own duration, is complete when it ends, and its value is this producer's", () => {
    const run = runPipeline(
      [
        ev.runStarted("r1", { timestamp: 1000 }),
        ev.reasoningMessageStart("gone", { timestamp: 1000 }),
        ev.reasoningMessageContent("gone", "again"),
        ev.reasoningMessageEnd("gone", { timestamp: 1500 }),
        ev.encryptedValue("message", "gone", "opaque"),
        ev.runFinished("r1"),
      ],
      { initialHistory: seed },
    );
    expect(run.error).toBeUndefined();
    const history = run.histories.at(-1)!;
    // Taken for a reopened message (R-TEXT-5), it kept the deleted one's start (2) and no span of its own.
    expect(history.durations.filter((d) => d.id === "gone")).toEqual([
      { kind: "message", id: "gone", startedAt: 1000, startObserved: false, endedAt: 1500, endObserved: false },
    ]);
    expect(history.incomplete).toEqual([]);
    expect(history.issuers).toEqual([{ subtype: "message", entityId: "gone", issuer: TEST_PRODUCER }]);
  });
});
