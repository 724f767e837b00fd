import { ev, historyOf as timedHistoryOf, msg, runPipeline } from "../../src/testing";

import { anyDurations, countingClock } from "../support/clock";

// Expected histories here take any durations (the D-DURATION tests pin them).
const historyOf = (...args: Parameters<typeof timedHistoryOf>) => anyDurations(timedHistoryOf(...args));

/**
 * Rules that no single stage owns: every stage must leave the material alone, so they are pinned end
 * to end through the facade (all six stages). Stage-specific behaviour is pinned in marbles/.
 */

const strip = (events: readonly object[]) => events.map(({ rawEvent: _omit, ...rest }: { rawEvent?: unknown }) => rest);

describe("pipeline-wide rules", () => {
  it("R-EVT-4: a rawEvent that looks like protocol material changes nothing — no stage derives behaviour from it", () => {
    const raw = (rawEvent: unknown) => ({ rawEvent });
    const plain = [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "a"),
      ev.reasoningMessageEnd("m1"),
      ev.textChunk("a1", "Hi"),
      ev.runFinished(),
    ];
    const decorated = [
      ev.runStarted("r1", raw({ type: "RUN_FINISHED" })),
      ev.reasoningMessageStart(
        "m1",
        raw({ type: "THINKING_TEXT_MESSAGE_START", role: "assistant", messageId: "other" }),
      ),
      ev.reasoningMessageContent("m1", "a", raw({ type: "REASONING_MESSAGE_END", messageId: "m1" })),
      ev.reasoningMessageEnd(
        "m1",
        raw({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: "v" }),
      ),
      ev.textChunk("a1", "Hi", raw({ messageId: "a2", delta: "other", thinking: true })),
      ev.runFinished("r1", raw({ outcome: { type: "interrupt" } })),
    ];
    const expected = runPipeline(plain, { scheduler: countingClock() });
    const actual = runPipeline(decorated, { scheduler: countingClock() });
    expect(actual.error).toBeUndefined();
    expect(actual.warnings).toEqual([]);
    expect(strip(actual.events)).toEqual(expected.events);
    expect(actual.history).toEqual(expected.history);
    expect(actual.history).toEqual(historyOf([msg.reasoning("m1", "a"), msg.assistant("a1", "Hi")]));
  });

  it("R-PASS-2: RAW events wrapping protocol events open, close, store and translate nothing", () => {
    const wrapped = (event: unknown) => ev.raw(event, { source: "provider" });
    const events = [
      ev.runStarted(),
      ev.reasoningChunk("m1", "a"),
      wrapped({ type: "REASONING_MESSAGE_END", messageId: "m1" }),
      wrapped({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: "v" }),
      wrapped({ type: "THINKING_START", title: "x" }),
      wrapped({ type: "REASONING_MESSAGE_START", messageId: "m2", role: "reasoning" }),
      ev.reasoningChunk(undefined, "b"),
      ev.runFinished(),
    ];
    const run = runPipeline(events);
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    expect(run.events.filter((e) => e.type === "RAW")).toEqual(events.slice(2, 6));
    expect(run.history).toEqual(historyOf([msg.reasoning("m1", "ab")]));
  });

  it("R-PASS-3: a CUSTOM event of any name passes every stage unchanged, silently, and touches no history", () => {
    const customs = [
      ev.custom("x-vendor.unknown", { a: [1, null] }),
      ev.custom("PredictState", [{ state_key: "k" }]),
      ev.custom("Exit", null),
    ];
    const run = runPipeline([ev.runStarted(), ...customs, ev.runFinished()]);
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    expect(run.events).toEqual([ev.runStarted(), ...customs, ev.runFinished()]);
    expect(run.events[1]).toBe(customs[0]);
    expect(run.histories).toEqual([historyOf()]);
  });
});
