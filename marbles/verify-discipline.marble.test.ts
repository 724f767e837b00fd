import { verifyDiscipline } from "../src/pipeline/operators";
import type { Message } from "@ag-ui/core";
import { createVerifyStage, passesAsContinuation, type VerifyOptions } from "../src/discipline/verify-discipline";
import { isOpenMessage } from "../src/discipline/open-items";
import { ReasoningProtocolError, isReasoningProtocolError, typeOf, type ReasoningErrorCode } from "../src/core/errors";
import { runStage } from "../src/core/stage-operator";
import type { AguiEvent } from "../src/core/types";
import { ev } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

/** What a failing stream must fail with. */
interface Failure {
  readonly code: ReasoningErrorCode;
  readonly rule: string;
  readonly eventIndex: number;
  readonly ids: readonly string[];
}

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * Runs `events` through `verifyDiscipline` in a marble diagram (one event per frame) and through the
 * pure stage (`runStage`), and asserts both: every event up to the failure is forwarded as the same
 * object, then either completion or the exact ReasoningProtocolError. The verifier never warns.
 */
function verify(
  events: readonly AguiEvent[],
  failure?: Failure,
  options: VerifyOptions = {},
): ReasoningProtocolError | undefined {
  expect(events.length).toBeLessThanOrEqual(LETTERS.length);
  const values: Record<string, AguiEvent> = {};
  events.forEach((e, i) => (values[LETTERS[i]!] = e));
  const delivered = failure === undefined ? events.length : failure.eventIndex;
  const source = `${LETTERS.slice(0, events.length)}|`;
  const expected = `${LETTERS.slice(0, delivered)}${failure === undefined ? "|" : "#"}`;
  const warnings = collectWarnings();

  createTestScheduler().run(({ cold, expectObservable }) => {
    const verified = cold(source, values).pipe(verifyDiscipline({ ...options, onWarning: warnings.onWarning }));
    expectObservable(verified).toBe(
      expected,
      values,
      failure === undefined ? undefined : expect.objectContaining({ ...failure, name: "ReasoningProtocolError" }),
    );
  });
  expect(warnings.codes()).toEqual([]);

  const r = runStage(createVerifyStage(options), events);
  expect(r.out).toHaveLength(delivered);
  r.out.forEach((e, i) => expect(e).toBe(events[i]));
  if (failure === undefined) {
    expect(r.error).toBeUndefined();
    return undefined;
  }
  expect(r.error).toBeInstanceOf(ReasoningProtocolError);
  const error = r.error as ReasoningProtocolError;
  expect({ code: error.code, rule: error.rule, eventIndex: error.eventIndex, ids: [...error.ids] }).toEqual({
    ...failure,
    ids: [...failure.ids],
  });
  expect(error.eventType).toBe(
    failure.eventIndex < events.length ? typeOf(events[failure.eventIndex]) : "<end of stream>",
  );
  // D-REDACT: no delta ever reaches an error message (checked for deltas long enough to be telling).
  for (const e of events) {
    if (typeof e === "object" && e !== null && typeof e.delta === "string" && e.delta.length >= 6) {
      expect(error.message).not.toContain(e.delta);
    }
  }
  return error;
}

const fails = (code: ReasoningErrorCode, rule: string, eventIndex: number, ids: readonly string[] = []): Failure => ({
  code,
  rule,
  eventIndex,
  ids,
});

// Shorthands for the digest's edge-case notation.
const RS = (runId = "r1", extra?: Record<string, unknown>) => ev.runStarted(runId, extra);
const RF = (runId = "r1", extra?: Record<string, unknown>) => ev.runFinished(runId, extra);
const RE = () => ev.runError("the agent failed");
const RSt = (id: string, extra?: Record<string, unknown>) => ev.reasoningStart(id, extra);
const REnd = (id: string, extra?: Record<string, unknown>) => ev.reasoningEnd(id, extra);
const RMS = (id: string, extra?: Record<string, unknown>) => ev.reasoningMessageStart(id, extra);
const RMC = (id: string, delta = "secret thought", extra?: Record<string, unknown>) =>
  ev.reasoningMessageContent(id, delta, extra);
const RME = (id: string, extra?: Record<string, unknown>) => ev.reasoningMessageEnd(id, extra);
const TMS = (id: string, extra?: Record<string, unknown>) => ev.textStart(id, "assistant", extra);
const TMC = (id: string, delta = "secret answer", extra?: Record<string, unknown>) => ev.textContent(id, delta, extra);
const TME = (id: string, extra?: Record<string, unknown>) => ev.textEnd(id, extra);
const TCS = (id: string, extra?: Record<string, unknown>) => ev.toolCallStart(id, "search", extra);
const TCA = (id: string, delta = '{"q":"secret"}', extra?: Record<string, unknown>) =>
  ev.toolCallArgs(id, delta, extra);
const TCE = (id: string, extra?: Record<string, unknown>) => ev.toolCallEnd(id, extra);
const SS = (name: string, extra?: Record<string, unknown>) => ev.stepStarted(name, extra);
const SF = (name: string, extra?: Record<string, unknown>) => ev.stepFinished(name, extra);
const SubS = (id: string, extra?: Record<string, unknown>) => ev.subagentStarted(id, extra);
const SubF = (id: string) => ev.subagentFinished(id);
const SubE = (id: string): AguiEvent => ({ type: "SUBAGENT_ERROR", subagentRunId: id, message: "subagent failed" });
const REV = (entityId: string) => ev.encryptedValue("message", entityId, "opaque-ciphertext");
const sub = (subagentRunId: string) => ({ subagentRunId });

describe("verifyDiscipline — reasoning spans and messages (R-REASON-8…14)", () => {
  it("R-REASON-8: discipline is verified for spans and reasoning messages alike", () => {
    verify([RS(), REnd("s1")], fails("ORPHAN_END", "R-REASON-10", 1, ["s1"]));
    verify([RS(), RMC("m1")], fails("ORPHAN_CONTENT", "R-REASON-9", 1, ["m1"]));
  });

  it("R-REASON-9: CONTENT or END naming a reasoning message nothing opened fails; no message is invented", () => {
    verify([RS(), RMS("m1"), RMC("m2")], fails("ORPHAN_CONTENT", "R-REASON-9", 2, ["m2"]));
    verify([RS(), RMS("m1"), RME("m2")], fails("ORPHAN_END", "R-REASON-9", 2, ["m2"]));
  });

  it("R-REASON-9: the fixture reasoning-discipline-verified fails at the orphan content with the reference wording", () => {
    const error = verify(
      [
        RS("r-reasoning-discipline"),
        RMC("m-reasoning-discipline-1", "orphaned thought"),
        TMS("m-reasoning-discipline-2"),
        TMC("m-reasoning-discipline-2", "the answer"),
        TME("m-reasoning-discipline-2"),
        RF("r-reasoning-discipline"),
      ],
      fails("ORPHAN_CONTENT", "R-REASON-9", 1, ["m-reasoning-discipline-1"]),
    );
    expect(error!.message).toContain("No active reasoning message found with ID 'm-reasoning-discipline-1'");
  });

  it("R-REASON-10: REASONING_END for an unopened span and REASONING_START re-opening an open span both fail", () => {
    verify([RS(), RSt("s1"), REnd("s2")], fails("ORPHAN_END", "R-REASON-10", 2, ["s2"]));
    verify([RS(), RSt("s1"), RSt("s1")], fails("DUPLICATE_OPEN", "R-REASON-10", 2, ["s1"]));
  });

  it("R-REASON-11: a second START of an open reasoning message fails; after its END the id may be reused", () => {
    verify([RS(), RMS("m1"), RMC("m1"), RMS("m1")], fails("DUPLICATE_OPEN", "R-REASON-11", 3, ["m1"]));
    verify([RS(), RMS("m1"), RMC("m1"), RME("m1"), RMS("m1"), RMC("m1"), RME("m1"), RF()]);
  });

  it("R-REASON-12: a span and a message may share an id: each is checked against its own open set", () => {
    verify([RS(), RSt("x"), RMS("x"), RMC("x"), RME("x"), REnd("x"), RF()]);
    verify([RS(), RMS("x"), RSt("x"), REnd("x"), RME("x"), RF()]);
  });

  it("R-REASON-13: a span or reasoning message still open at RUN_FINISHED fails the run, naming every open id", () => {
    verify([RS(), RSt("s1"), RMS("m1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-REASON-13", 3, ["s1", "m1"]));
    verify([RS(), RSt("s1"), RMS("m1"), RME("m1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-REASON-13", 4, ["s1"]));
    verify([RS(), RMS("m1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-REASON-13", 2, ["m1"]));
  });

  it("R-REASON-14: a fragment naming an open span id is an orphan (separate namespaces)", () => {
    const error = verify([RS(), RSt("s1"), RMC("s1")], fails("ORPHAN_CONTENT", "R-REASON-14", 2, ["s1"]));
    expect(error!.message).toContain("open as a reasoning span");
  });

  it("R-REASON-21: REASONING_ENCRYPTED_VALUE is standalone: anywhere in a run, inside or outside a span", () => {
    verify([
      RS(),
      REV("m1"),
      RSt("s1"),
      RMS("m1"),
      REV("m1"),
      RMC("m1"),
      REV("m1"),
      RME("m1"),
      REnd("s1"),
      REV("m1"),
      RF(),
    ]);
  });
});

describe("verifyDiscipline — streaming pattern (R-STREAM-*)", () => {
  it("R-STREAM-1: opening an item whose id is already open fails, in every family", () => {
    verify([RS(), TMS("a1"), TMS("a1")], fails("DUPLICATE_OPEN", "R-TEXT-9", 2, ["a1"]));
    verify([RS(), TCS("tc1"), TCS("tc1")], fails("DUPLICATE_OPEN", "R-TOOL-6", 2, ["tc1"]));
    verify([RS(), SS("plan"), SS("plan")], fails("DUPLICATE_OPEN", "R-RUN-12", 2, ["plan"]));
  });

  it("R-STREAM-2: content or end for an id that is not open fails, in every family", () => {
    verify([RS(), TMC("a1")], fails("ORPHAN_CONTENT", "R-TEXT-9", 1, ["a1"]));
    verify([RS(), TCA("tc1")], fails("ORPHAN_CONTENT", "R-TOOL-6", 1, ["tc1"]));
    verify([RS(), TCS("tc1"), TCE("tc1"), TCE("tc1")], fails("ORPHAN_END", "R-TOOL-6", 3, ["tc1"]));
  });

  it("R-STREAM-3: an explicitly opened item still open when the run finishes fails it", () => {
    verify([RS(), TCS("tc1"), TCA("tc1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-TOOL-6", 3, ["tc1"]));
    verify(
      [RS(), TMS("a1"), TCS("tc1"), SS("plan"), RF()],
      fails("OPEN_AT_RUN_FINISHED", "R-TEXT-9", 4, ["a1", "tc1", "plan"]),
    );
  });

  it("R-STREAM-5: families interleave freely and several reasoning messages may be open at once", () => {
    verify([
      RS(),
      SS("think"),
      RSt("s1"),
      RMS("m1"),
      TMS("a1"),
      RMS("m2"),
      TCS("tc1"),
      RMC("m2"),
      TMC("a1"),
      TCA("tc1"),
      RMC("m1"),
      RME("m1"),
      TCE("tc1"),
      REnd("s1"),
      TME("a1"),
      RME("m2"),
      SF("think"),
      RF(),
    ]);
  });

  it("R-STREAM-6: standalone and unknown events need an open run but touch no open set", () => {
    const standalone: AguiEvent[] = [
      ev.stateSnapshot({ a: 1 }),
      ev.stateDelta([]),
      ev.messagesSnapshot([]),
      ev.activitySnapshot("act1"),
      { type: "ACTIVITY_DELTA", messageId: "act1", activityType: "progress", patch: [] },
      ev.custom(),
      ev.raw(),
      REV("m1"),
      ev.toolCallResult("tm1", "tc1", "result"),
      { type: "SOME_FUTURE_EVENT", messageId: "m1" },
    ];
    verify([RS(), RMS("m1"), ...standalone, RMC("m1"), RME("m1"), RF()]);
    standalone.forEach((e) => verify([RS(), RF(), e], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2)));
    standalone.forEach((e) => verify([e], fails("EVENT_OUTSIDE_RUN", "R-RUN-1", 0)));
  });

  it("R-STREAM-7: a *_CHUNK reaching verification fails as MALFORMED_EVENT: chunks must be expanded first", () => {
    for (const chunk of [
      ev.reasoningChunk("m1", "x"),
      ev.textChunk("a1", "x"),
      ev.toolCallChunk("tc1", "search", "{}"),
    ]) {
      verify([RS(), chunk], fails("MALFORMED_EVENT", "R-STREAM-7", 1));
    }
  });

  it("R-STREAM-9: after a chunk stream's synthesized END, an explicit CONTENT for its id is an orphan", () => {
    // Expanded form of CHUNK(m1,"a") then explicit REASONING_MESSAGE_CONTENT(m1): START, CONTENT, synthesized END, CONTENT.
    verify(
      [RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), RMC("m1", "b")],
      fails("ORPHAN_CONTENT", "R-REASON-9", 4, ["m1"]),
    );
  });

  it("R-STREAM-9: the error names the source index that synthesized events share with their trigger", () => {
    const stage = createVerifyStage();
    let state = stage.init();
    state = stage.step(state, RS(), { index: 0 }).state;
    state = stage.step(state, RMS("m1"), { index: 1 }).state;
    state = stage.step(state, RME("m1"), { index: 2 }).state;
    let caught: unknown;
    try {
      stage.step(state, RMC("m1"), { index: 2 });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ReasoningProtocolError);
    expect(caught).toMatchObject({ code: "ORPHAN_CONTENT", rule: "R-REASON-9", eventIndex: 2, ids: ["m1"] });
  });
});

describe("verifyDiscipline — text messages and tool calls (R-TEXT-*, R-TOOL-6)", () => {
  it("R-TEXT-5: a closed text message is closed, not sealed: a new START reopens it (fixture reopen-closed-message-appends)", () => {
    verify([
      RS("reopen-r1"),
      TMS("reopen-m1"),
      TMC("reopen-m1", "First half."),
      TME("reopen-m1"),
      TMS("reopen-m1"),
      TMC("reopen-m1", " Second half."),
      TME("reopen-m1"),
      RF("reopen-r1"),
    ]);
  });

  it("R-TEXT-6: reopening a closed message under a different owner within the run is an attribution mismatch", () => {
    verify(
      [RS(), TMS("a1", sub("A")), TME("a1"), TMS("a1", sub("B"))],
      fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 3, ["a1"]),
    );
    verify([RS(), TMS("a1"), TME("a1"), TMS("a1", sub("B"))], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 3, ["a1"]));
    // An untagged reopen agrees with any owner; a new run forgets owners (detection across runs is not required).
    verify([
      RS(),
      TMS("a1", sub("A")),
      TME("a1"),
      TMS("a1"),
      TME("a1", sub("A")),
      RF(),
      RS("r2"),
      TMS("a1", sub("B")),
      TME("a1"),
      RF("r2"),
    ]);
  });

  it("R-TEXT-9: orphan CONTENT/END, a double START and a message open at RUN_FINISHED are all fatal", () => {
    const error = verify(
      [RS(), TMC("orphan-content-m1", "nothing is open")],
      fails("ORPHAN_CONTENT", "R-TEXT-9", 1, ["orphan-content-m1"]),
    );
    expect(error!.message).toContain("No active text message found with ID 'orphan-content-m1'");
    verify([RS(), TME("a1")], fails("ORPHAN_END", "R-TEXT-9", 1, ["a1"]));
    verify([RS(), TMS("a1"), TMS("a1")], fails("DUPLICATE_OPEN", "R-TEXT-9", 2, ["a1"]));
    const open = verify(
      [RS(), TMS("a1"), TMC("a1", "never closed"), RF()],
      fails("OPEN_AT_RUN_FINISHED", "R-TEXT-9", 3, ["a1"]),
    );
    expect(open!.message).toContain("Cannot send 'RUN_FINISHED' while text messages are still active");
  });

  it("R-TOOL-6: continuing or closing a non-open call, reopening an open one, or finishing with one open is fatal", () => {
    verify([RS(), TCA("tc1")], fails("ORPHAN_CONTENT", "R-TOOL-6", 1, ["tc1"]));
    verify([RS(), TCE("tc1")], fails("ORPHAN_END", "R-TOOL-6", 1, ["tc1"]));
    verify([RS(), TCS("tc1"), TCS("tc1")], fails("DUPLICATE_OPEN", "R-TOOL-6", 2, ["tc1"]));
    verify([RS(), TCS("tc1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-TOOL-6", 2, ["tc1"]));
    // The triad itself, a reopen after END (R-TOOL-2) and a result for the call pass.
    verify([
      RS(),
      TCS("tc1"),
      TCA("tc1", '{"q":'),
      TCA("tc1", '"agui"}'),
      TCE("tc1"),
      TCS("tc1"),
      TCE("tc1"),
      ev.toolCallResult("tm1", "tc1", "ok"),
      RF(),
    ]);
  });
});

describe("verifyDiscipline — run lifecycle (R-RUN-*)", () => {
  it("R-RUN-1: a stream must begin with RUN_STARTED or RUN_ERROR", () => {
    const error = verify([RSt("s1"), RF()], fails("EVENT_OUTSIDE_RUN", "R-RUN-1", 0, ["s1"]));
    expect(error!.message).toContain("First event must be 'RUN_STARTED'");
    verify([RF()], fails("EVENT_OUTSIDE_RUN", "R-RUN-1", 0));
    verify([RE()]);
    verify([RS(), RF()]);
  });

  it("R-RUN-4: a cancelled run must close everything too; an open item fails RUN_FINISHED(cancelled)", () => {
    const cancelled = { outcome: { type: "cancelled" } };
    verify([RS(), RSt("s1"), RF("r1", cancelled)], fails("OPEN_AT_RUN_FINISHED", "R-RUN-4", 2, ["s1"]));
    verify([RS(), TMS("a1"), TMC("a1", "delivered before the stop"), TME("a1"), RF("r1", cancelled)]);
  });

  it("R-RUN-4: an interrupt outcome is no exception: open items fail it, a closed run passes", () => {
    const interrupt = { outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "approval" }] } };
    verify([RS(), TCS("tc1"), RF("r1", interrupt)], fails("OPEN_AT_RUN_FINISHED", "R-TOOL-6", 2, ["tc1"]));
    verify([RS(), TMS("a1"), TMC("a1", "May I proceed?"), TME("a1"), RF("r1", interrupt)]);
  });

  it("R-RUN-7: after RUN_FINISHED only RUN_STARTED or a late RUN_ERROR; after RUN_ERROR only RUN_STARTED", () => {
    verify([RS(), TMS("a1"), TME("a1"), RF(), RE()]);
    verify([RS(), RF(), RE(), RS("r2"), RF("r2")]);
    verify([RS(), RF(), RE(), RE()], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 3));
    verify([RS(), RF(), RF()], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2));
  });

  it("R-RUN-8: any other event after the run closed is rejected (fixture event-after-run-finished-fatal)", () => {
    const error = verify(
      [RS(), RF(), TMS("event-after-run-finished-m-1")],
      fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2, ["event-after-run-finished-m-1"]),
    );
    expect(error!.message).toContain("The run has already finished with 'RUN_FINISHED'");
    const afterError = verify([RS(), RE(), ev.custom()], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2));
    expect(afterError!.message).toContain("The run has already errored with 'RUN_ERROR'");
    verify([RS(), RF(), REV("m1")], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2));
  });

  it("R-RUN-9: RUN_STARTED while a run is open fails; runs in sequence pass", () => {
    const error = verify([RS("r1"), RS("r2")], fails("NESTED_RUN", "R-RUN-9", 1, ["r1", "r2"]));
    expect(error!.message).toContain("Cannot send 'RUN_STARTED' while a run is still active");
    verify([RS("r1"), RF("r1"), RS("r2"), RF("r2"), RS("r3"), RE(), RS("r4"), RF("r4")]);
  });

  it("R-RUN-11: RUN_ERROR ends everything still open in every family; the next run starts with nothing open", () => {
    verify([RS(), RSt("s1"), RMS("m1"), TMS("a1"), TCS("tc1"), SS("plan"), SubS("A"), RE(), RS("r2"), RF("r2")]);
    verify([RS(), TCS("tc1"), RE(), RS("r2"), TCA("tc1")], fails("ORPHAN_CONTENT", "R-TOOL-6", 4, ["tc1"]));
  });

  it("R-RUN-12: steps match by name: no double open, no finishing an unopened step, none open at RUN_FINISHED", () => {
    verify([RS(), SS("plan"), SS("plan")], fails("DUPLICATE_OPEN", "R-RUN-12", 2, ["plan"]));
    const error = verify(
      [RS(), SF("step-finished-without-start-never-opened")],
      fails("ORPHAN_END", "R-RUN-12", 1, ["step-finished-without-start-never-opened"]),
    );
    expect(error!.message).toContain("that was not started");
    verify([RS(), SS("plan"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-RUN-12", 2, ["plan"]));
    verify([RS(), SS("plan"), SS("act"), SF("plan"), SS("plan"), SF("act"), SF("plan"), RF()]);
  });

  it("R-RUN-12: steps are per owner: parent and subagent may each have a step of one name; each closes its own", () => {
    verify([RS(), SS("tools"), SS("tools", sub("A")), SF("tools", sub("A")), SF("tools"), RF()]);
    verify([RS(), SS("tools", sub("")), SF("tools")], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["tools"]));
    verify([RS(), SS("tools"), SF("tools", sub("A"))], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["tools"]));
    verify([RS(), SS("tools", sub("A")), RF()], fails("OPEN_AT_RUN_FINISHED", "R-RUN-12", 2, ["tools"]));
  });

  it("R-RUN-13: a producer RUN_ERROR is forwarded as an event; a violation is an error notification after what was delivered", () => {
    verify([RS(), RMS("m1"), RMC("m1", "partial"), RE()]);
    const error = verify(
      [RS(), RMS("m1"), RMC("m1", "partial"), RSt("s1"), RSt("s1")],
      fails("DUPLICATE_OPEN", "R-REASON-10", 4, ["s1"]),
    );
    expect(isReasoningProtocolError(error)).toBe(true);
  });
});

describe("verifyDiscipline — subagents (R-SUB-*)", () => {
  it("R-SUB-1: subagentRunId null is malformed (absent is the only spelling of the parent)", () => {
    verify([RS(), RMS("m1", { subagentRunId: null })], fails("MALFORMED_EVENT", "R-SUB-1", 1));
    verify([RS(), RMS("m1"), RMC("m1", "x", { subagentRunId: null })], fails("MALFORMED_EVENT", "R-SUB-1", 2));
  });

  it("R-SUB-2: a continuation whose tag disagrees with its opener fails; an untagged continuation is accepted", () => {
    verify([RS(), RMS("m1", sub("A")), RMC("m1", "x", sub("B"))], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["m1"]));
    verify([RS(), RMS("m1", sub("A")), RMC("m1"), RMC("m1", "y", sub("A")), RME("m1"), RF()]);
    // A parent-owned opener is an owner too: a tagged continuation of it disagrees.
    verify([RS(), TMS("a1"), TMC("a1", "x", sub("A"))], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["a1"]));
  });

  it("R-SUB-2: fixture subagent-attribution-mismatch-fatal: a TOOL_CALL_END tagged by another subagent fails", () => {
    const error = verify(
      [RS(), TCS("tc-1", sub("s-1")), TCA("tc-1", "{}"), TCE("tc-1", sub("s-2")), RF()],
      fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 3, ["tc-1"]),
    );
    expect(error!.message).toContain("does not match");
  });

  it("R-SUB-2: fixture subagent-unannounced-attribution-accepted: attribution without SUBAGENT_STARTED is legal", () => {
    verify([
      RS(),
      TMS("m-1", sub("s-1")),
      TMC("m-1", "delegated ", sub("s-1")),
      TMC("m-1", "answer"),
      TME("m-1", sub("s-1")),
      RF(),
    ]);
  });

  it("R-SUB-5: a run must not finish while an invocation is active (fixture run-finished-with-active-subagent-fatal)", () => {
    const error = verify(
      [RS(), SubS("s-active-1"), TMS("m-1", sub("s-active-1")), TMC("m-1", "working"), TME("m-1"), RF()],
      fails("OPEN_AT_RUN_FINISHED", "R-SUB-5", 5, ["s-active-1"]),
    );
    expect(error!.message).toContain("s-active-1");
    verify([RS(), SubS("A"), SubF("A"), SubS("B"), SubE("B"), RF()]);
  });

  it("R-SUB-5: invocation lifecycle: terminal of an unannounced id, a double or reused announce, an unannounced parent", () => {
    verify([RS(), SubF("s-unstarted-1"), RF()], fails("ORPHAN_END", "R-SUB-5", 1, ["s-unstarted-1"]));
    verify([RS(), SubS("A"), SubE("A"), SubE("A")], fails("ORPHAN_END", "R-SUB-5", 3, ["A"]));
    verify([RS(), SubS("A"), SubS("A")], fails("DUPLICATE_OPEN", "R-SUB-5", 2, ["A"]));
    verify([RS(), SubS("A"), SubF("A"), SubS("A")], fails("DUPLICATE_OPEN", "R-SUB-5", 3, ["A"]));
    verify([RS(), SubS("B", { parentSubagentRunId: "A" })], fails("ORPHAN_CONTENT", "R-SUB-5", 1, ["A"]));
    // A parent announced in this run (still active or already finished) may spawn; a new run may reuse an id.
    verify([
      RS(),
      SubS("A"),
      SubS("B", { parentSubagentRunId: "A" }),
      SubF("A"),
      SubS("C", { parentSubagentRunId: "A" }),
      SubF("B"),
      SubF("C"),
      RF(),
      RS("r2"),
      SubS("A"),
      SubF("A"),
      RF("r2"),
    ]);
  });
});

describe("verifyDiscipline — decisions (D-*)", () => {
  it("D-SPAN-OWNER: a REASONING_END whose subagentRunId disagrees with its REASONING_START fails; untagged is accepted", () => {
    verify([RS(), RSt("s1", sub("A")), REnd("s1", sub("B"))], fails("ATTRIBUTION_MISMATCH", "D-SPAN-OWNER", 2, ["s1"]));
    verify([RS(), RSt("s1", sub("A")), REnd("s1"), RSt("s2", sub("A")), REnd("s2", sub("A")), RF()]);
  });

  it("D-CONTAIN: reasoning messages outside spans, and a span closed before its message, are allowed", () => {
    verify([RS(), RMS("m1"), RMC("m1"), RME("m1"), RF()]);
    verify([RS(), RSt("s1"), RMS("m1"), REnd("s1"), RMC("m1"), RME("m1"), RF()]);
  });

  it("D-ROLE-CONFLICT: REASONING_MESSAGE_START naming a known non-reasoning message fails, from every source of roles", () => {
    const user: Message = { id: "u1", role: "user", content: "hi" };
    verify([RS(), TMS("a1"), TME("a1"), RMS("a1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 3, ["a1"]));
    verify([RS(), RMS("u1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 1, ["u1"]), { initialMessages: [user] });
    verify(
      [RS("r1", { input: { threadId: "t1", runId: "r1", messages: [user] } }), RMS("u1")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 1, ["u1"]),
    );
    verify([RS(), ev.messagesSnapshot([user]), RMS("u1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 2, ["u1"]));
    verify(
      [RS(), ev.toolCallResult("tm1", "tc1", "ok"), RMS("tm1")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 2, ["tm1"]),
    );
    verify([RS(), ev.activitySnapshot("act1"), RMS("act1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 2, ["act1"]));
    // An open text message is a known assistant message too.
    verify([RS(), TMS("a1"), RMS("a1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 2, ["a1"]));
  });

  it("D-RUN-ID: RUN_FINISHED or RUN_ERROR naming another runId/threadId than RUN_STARTED ends the run with a non-lossy RUN_ID_MISMATCH naming both", () => {
    const stage = () => createVerifyStage();
    const finished = runStage(stage(), [RS("r1"), RF("server-minted"), RS("r2"), RF("r2")]);
    expect(finished.error).toBeUndefined();
    expect(finished.out).toHaveLength(4);
    expect(finished.warnings).toEqual([
      expect.objectContaining({
        code: "RUN_ID_MISMATCH",
        rule: "D-RUN-ID",
        eventIndex: 1,
        eventType: "RUN_FINISHED",
        ids: ["r1", "server-minted"],
      }),
    ]);
    expect(finished.warnings[0]!.lossy).toBeUndefined();
    // A new run may start after it: the run did end.
    expect(finished.state.phase).toBe("finished");
    const thread = runStage(stage(), [RS("r1"), ev.runFinished("r1", { threadId: "other-thread" })]);
    expect(thread.warnings.map((w) => w.ids)).toEqual([["t1", "other-thread"]]);
    const errored = runStage(stage(), [
      RS("r1"),
      RMS("m1"),
      { type: "RUN_ERROR", message: "boom", runId: "r9" },
      RS("r2"),
      RF("r2"),
    ]);
    expect(errored.error).toBeUndefined();
    expect(errored.warnings.map((w) => [w.code, w.eventIndex, w.ids])).toEqual([["RUN_ID_MISMATCH", 2, ["r1", "r9"]]]);
    // RUN_ERROR carries no ids in 1.0: nothing to compare; a matching RUN_FINISHED: no warning.
    expect(runStage(stage(), [RS("r1"), { type: "RUN_ERROR", message: "boom" }]).warnings).toEqual([]);
    expect(runStage(stage(), [RS("r1"), RF("r1")]).warnings).toEqual([]);
  });

  it("D-SNAPSHOT-ROLE: a snapshot restating an open message with another role leaves it open in the family that opened it; every diagnostic names that family", () => {
    const restated = ev.messagesSnapshot([{ id: "t", role: "reasoning", content: "c" }]);
    verify([RS(), TMS("t"), restated, TMC("t"), TME("t"), RF()]);
    const wrongEnd = verify([RS(), TMS("t"), restated, RME("t")], fails("ORPHAN_END", "R-REASON-9", 3, ["t"]))!;
    expect(wrongEnd.message).toContain("open as a text message, which only TEXT_MESSAGE_END closes");
    const finished = verify([RS(), TMS("t"), restated, RF()], fails("OPEN_AT_RUN_FINISHED", "R-TEXT-9", 3, ["t"]))!;
    expect(finished.message).toContain("text messages are still active");
    // The other way round.
    const asAnswer = ev.messagesSnapshot([{ id: "r", role: "assistant", content: "c" }]);
    verify([RS(), RMS("r"), asAnswer, RMC("r"), RME("r"), RF()]);
    const wrongText = verify([RS(), RMS("r"), asAnswer, TME("r")], fails("ORPHAN_END", "R-TEXT-9", 3, ["r"]))!;
    expect(wrongText.message).toContain("open as a reasoning message, which only REASONING_MESSAGE_END closes");
  });

  it("D-ROLE-CONFLICT: TEXT_MESSAGE_START naming a known reasoning message fails; same-kind reopens pass, across runs too", () => {
    const thought: Message = { id: "r1m", role: "reasoning", content: "earlier" };
    verify([RS(), RMS("m1"), RME("m1"), TMS("m1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 3, ["m1"]));
    verify([RS(), TMS("r1m")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 1, ["r1m"]), {
      initialMessages: [thought],
    });
    verify(
      [
        RS(),
        RMS("r1m"),
        RME("r1m"),
        RF(),
        RS("r2"),
        RMS("m1"),
        RME("m1"),
        RF("r2"),
        RS("r3"),
        RMS("m1"),
        RME("m1"),
        RF("r3"),
      ],
      undefined,
      {
        initialMessages: [thought],
      },
    );
  });

  it("D-ROLE-CONFLICT: only reasoning vs non-reasoning conflicts: a text START with another text role passes", () => {
    verify([RS(), TMS("a1"), TME("a1"), ev.textStart("a1", "user"), TME("a1"), RF()]);
    verify([RS(), TMS("u1"), TME("u1"), RF()], undefined, {
      initialMessages: [{ id: "u1", role: "user", content: "hi" }],
    });
    verify([RS(), ev.toolCallResult("tm1", "tc1", "ok"), TMS("tm1"), TME("tm1"), RF()]);
  });

  it("D-ROLE-CONFLICT: a MESSAGES_SNAPSHOT restating an id with a new role replaces the known role", () => {
    verify([
      RS(),
      TMS("x"),
      TME("x"),
      ev.messagesSnapshot([{ id: "x", role: "reasoning", content: "t" }]),
      RMS("x"),
      RME("x"),
      RF(),
    ]);
  });

  it("D-RUN-ERROR: RUN_ERROR with open items is forwarded, fails nothing, and clears the open sets", () => {
    verify([
      RS(),
      RSt("s1"),
      RMS("m1"),
      RMC("m1", "partial"),
      RE(),
      RS("r2"),
      RSt("s1"),
      RMS("m1"),
      RME("m1"),
      REnd("s1"),
      RF("r2"),
    ]);
  });

  it("D-TRUNC: a source completing inside a run fails with RUN_TRUNCATED naming every open id; no RUN_FINISHED is synthesized", () => {
    const error = verify(
      [RS(), RSt("s1"), RMS("m1"), TMS("a1"), TCS("tc1"), SS("plan"), SubS("A")],
      fails("RUN_TRUNCATED", "D-TRUNC", 7, ["s1", "m1", "a1", "tc1", "plan", "A"]),
    );
    expect(error!.eventType).toBe("<end of stream>");
    verify([RS()], fails("RUN_TRUNCATED", "D-TRUNC", 1));
  });

  it("D-TRUNC: an empty stream, or one ending after RUN_FINISHED or RUN_ERROR, completes cleanly", () => {
    verify([]);
    verify([RS(), RF()]);
    verify([RS(), RMS("m1"), RE()]);
    verify([RS(), RF(), RE()]);
  });

  it("D-REDACT: error messages carry ids and types, never a delta", () => {
    const error = verify(
      [RS(), RMS("m1", sub("A")), RMC("m1", "the password is hunter2", sub("B"))],
      fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["m1"]),
    );
    expect(error!.message).not.toContain("hunter2");
    expect(JSON.stringify(error)).not.toContain("hunter2");
  });
});

describe("verifyDiscipline — LIMIT_EXCEEDED (maxOpenItems)", () => {
  it("D-LIMIT: LIMIT_EXCEEDED when open items of all families together pass maxOpenItems", () => {
    verify([RS(), RSt("s1"), TCS("tc1"), TMS("a1")], fails("LIMIT_EXCEEDED", "D-LIMIT", 3, ["a1"]), {
      maxOpenItems: 2,
    });
    verify([RS(), RMS("m1")], fails("LIMIT_EXCEEDED", "D-LIMIT", 1, ["m1"]), { maxOpenItems: 0 });
  });

  it("D-LIMIT: closing frees a slot, a reopen counts again, a new run starts from zero", () => {
    const run1 = [RS(), RSt("s1"), RMS("m1"), RME("m1"), TMS("a1"), TME("a1"), RMS("m1"), RME("m1"), REnd("s1"), RF()];
    const run2 = [RS("r2"), SS("a"), SS("b"), SF("a"), SF("b"), RF("r2")];
    verify([...run1, ...run2], undefined, { maxOpenItems: 2 });
    verify([RS(), RMS("m1"), RME("m1"), TMS("a1"), RMS("m1")], fails("LIMIT_EXCEEDED", "D-LIMIT", 4, ["m1"]), {
      maxOpenItems: 1,
    });
  });

  it("LIMIT_EXCEEDED: the default allows 10,000 open items and fails the 10,001st", () => {
    const stage = createVerifyStage();
    let state = stage.init();
    state = stage.step(state, RS(), { index: 0 }).state;
    for (let i = 0; i < 10_000; i++) state = stage.step(state, TCS(`tc${i}`), { index: i + 1 }).state;
    expect(() => stage.step(state, TCS("one-more"), { index: 10_001 })).toThrow(
      expect.objectContaining({ code: "LIMIT_EXCEEDED", eventIndex: 10_001, ids: ["one-more"] }),
    );
  });

  it("LIMIT_EXCEEDED: an invalid maxOpenItems is rejected when the operator is created", () => {
    for (const maxOpenItems of [-1, 1.5, Number.NaN])
      expect(() => createVerifyStage({ maxOpenItems })).toThrow(RangeError);
    expect(() => createVerifyStage({ maxOpenItems: Infinity })).not.toThrow();
  });
});

describe("verifyDiscipline — edge cases #1–#27 (digest §A)", () => {
  it("#1 R-REASON-9: CONTENT for an unopened message fails", () => {
    verify([RS(), RMC("m1", "x")], fails("ORPHAN_CONTENT", "R-REASON-9", 1, ["m1"]));
  });

  it("#2 R-REASON-9: END with nothing open fails", () => {
    verify([RS(), RME("m1")], fails("ORPHAN_END", "R-REASON-9", 1, ["m1"]));
  });

  it("#3 R-REASON-11: START twice while still open fails at the second START", () => {
    verify([RS(), RMS("m1"), RMS("m1")], fails("DUPLICATE_OPEN", "R-REASON-11", 2, ["m1"]));
  });

  it("#4 R-TEXT-5: START, CONTENT, END, START again, CONTENT, END passes (reopen)", () => {
    verify([RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), RMS("m1"), RMC("m1", "b"), RME("m1"), RF()]);
  });

  it("#5 R-REASON-10: span START twice fails at the second START", () => {
    verify([RS(), RSt("s1"), RSt("s1")], fails("DUPLICATE_OPEN", "R-REASON-10", 2, ["s1"]));
  });

  it("#6 R-REASON-3: a closed span id may be reused", () => {
    verify([RS(), RSt("s1"), REnd("s1"), RSt("s1"), REnd("s1"), RF()]);
  });

  it("#7 R-REASON-5: END of a span never opened fails", () => {
    verify([RS(), REnd("s1")], fails("ORPHAN_END", "R-REASON-10", 1, ["s1"]));
  });

  it("#8 R-REASON-12: a span id reused as a message id passes", () => {
    verify([RS(), RSt("x"), RMS("x"), RMC("x", "t"), RME("x"), REnd("x"), RF()]);
  });

  it("#9 R-REASON-14: a fragment naming a span fails as an orphan", () => {
    verify([RS(), RSt("s1"), RMC("s1", "t")], fails("ORPHAN_CONTENT", "R-REASON-14", 2, ["s1"]));
  });

  it("#10 R-REASON-14: REASONING_END of an id a message opened fails: no span is open", () => {
    verify([RS(), RMS("m1"), REnd("m1")], fails("ORPHAN_END", "R-REASON-14", 2, ["m1"]));
  });

  it("#11 R-REASON-14: a message END naming a span fails", () => {
    verify([RS(), RSt("s1"), RME("s1")], fails("ORPHAN_END", "R-REASON-14", 2, ["s1"]));
  });

  it("#12 D-CONTAIN: a reasoning message with no span passes", () => {
    verify([RS(), RMS("m1"), RMC("m1"), RME("m1"), RF()]);
  });

  it("#13 D-CONTAIN: a span closed before its message passes", () => {
    verify([RS(), RSt("s1"), RMS("m1"), REnd("s1"), RMC("m1", "t"), RME("m1"), RF()]);
  });

  it("#14 R-REASON-6: an empty span passes", () => {
    verify([RS(), RSt("s1"), REnd("s1"), RF()]);
  });

  it("#15 R-REASON-2: two messages interleaved in one span pass", () => {
    verify([RS(), RSt("s"), RMS("a"), RMS("b"), RMC("b"), RMC("a"), RME("a"), RME("b"), REnd("s"), RF()]);
  });

  it("#16 R-REASON-13: an open span at RUN_FINISHED fails there and RUN_FINISHED is not forwarded", () => {
    verify([RS(), RSt("s1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-REASON-13", 2, ["s1"]));
  });

  it("#17 R-REASON-13: an open explicit reasoning message at RUN_FINISHED fails", () => {
    verify([RS(), RMS("m1"), RMC("m1"), RF()], fails("OPEN_AT_RUN_FINISHED", "R-REASON-13", 3, ["m1"]));
  });

  it("#18 R-RUN-4: an open span at a cancelled RUN_FINISHED fails", () => {
    verify(
      [RS(), RSt("s1"), RF("r1", { outcome: { type: "cancelled" } })],
      fails("OPEN_AT_RUN_FINISHED", "R-RUN-4", 2, ["s1"]),
    );
  });

  it("#19 R-RUN-11: an open message at RUN_ERROR is no violation: RUN_ERROR is forwarded", () => {
    verify([RS(), RMS("m1"), RMC("m1", "par"), RE()]);
  });

  it("#20 R-RUN-11: an open span at RUN_ERROR is no violation", () => {
    verify([RS(), RSt("s1"), RE()]);
  });

  it("#21 R-RUN-11: tracking resets at the boundary: content for a message of the errored run fails in the next", () => {
    verify([RS(), RMS("m1"), RE(), RS("r2"), RMC("m1", "x")], fails("ORPHAN_CONTENT", "R-REASON-9", 4, ["m1"]));
    verify([RS(), RMS("m1"), RE(), RS("r2"), RMS("m1"), RMC("m1", "x"), RME("m1"), RF("r2")]);
  });

  it("#22 R-TRANS-3: a source ending with an open span and no terminal is truncation, never a synthetic RUN_FINISHED", () => {
    verify([RS(), RSt("s1")], fails("RUN_TRUNCATED", "D-TRUNC", 2, ["s1"]));
  });

  it("#23 R-RUN-8: RUN_FINISHED then REASONING_START fails", () => {
    verify([RS(), RF(), RSt("s1")], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2, ["s1"]));
  });

  it("#24 R-RUN-8: RUN_FINISHED then REASONING_ENCRYPTED_VALUE fails: standalone events need an open run", () => {
    verify([RS(), RF(), REV("m1")], fails("EVENT_OUTSIDE_RUN", "R-RUN-8", 2));
  });

  it("#25 R-RUN-1: a stream starting with REASONING_START fails", () => {
    verify([RSt("s1")], fails("EVENT_OUTSIDE_RUN", "R-RUN-1", 0, ["s1"]));
  });

  it("#26 R-RUN-1: RUN_ERROR first, then RUN_STARTED, reasoning, RUN_FINISHED passes", () => {
    verify([RE(), RS(), RSt("s1"), RMS("m1"), RMC("m1"), RME("m1"), REnd("s1"), RF()]);
  });

  it("#27 R-SUB-2: tagged START then differently tagged CONTENT fails; untagged CONTENT passes", () => {
    verify([RS(), RMS("m1", sub("A")), RMC("m1", "x", sub("B"))], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["m1"]));
    verify([RS(), RMS("m1", sub("A")), RMC("m1", "x"), RME("m1"), RF()]);
  });
});

describe("verifyDiscipline — expanded chunk streams (#44, #46–#50; fed already expanded)", () => {
  it("#44 R-STREAM-15: the synthesized END then REASONING_END of an open span passes; of an unopened span fails", () => {
    verify([RS(), RSt("s1"), RMS("m1"), RMC("m1", "a"), RME("m1"), REnd("s1"), RF()]);
    verify([RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), REnd("s1")], fails("ORPHAN_END", "R-REASON-10", 4, ["s1"]));
  });

  it("#46 R-STREAM-9: the synthesized END then an explicit END of the same id fails as an orphan", () => {
    verify([RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), RME("m1")], fails("ORPHAN_END", "R-REASON-9", 4, ["m1"]));
  });

  it("#47 R-STREAM-9: the synthesized END then an explicit CONTENT of the same id fails as an orphan", () => {
    verify(
      [RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), RMC("m1", "b")],
      fails("ORPHAN_CONTENT", "R-REASON-9", 4, ["m1"]),
    );
  });

  it("#48 R-TEXT-5: the synthesized END then an explicit START of the same id is a reopen and passes", () => {
    verify([RS(), RMS("m1"), RMC("m1", "a"), RME("m1"), RMS("m1"), RMC("m1", "b"), RME("m1"), RF()]);
  });

  it("#49 R-REASON-11: an explicit START open, then the START expansion synthesizes for the same id, fails", () => {
    verify([RS(), RMS("m1"), RMS("m1"), RMC("m1", "x")], fails("DUPLICATE_OPEN", "R-REASON-11", 2, ["m1"]));
  });

  it("#50 R-STREAM-7: an id-less chunk is expansion's to reject; should one reach verification it fails as unexpanded", () => {
    verify([RS(), RMS("m1"), ev.reasoningChunk(undefined, "x")], fails("MALFORMED_EVENT", "R-STREAM-7", 2));
  });
});

describe("verifyDiscipline — hostile input and the pure step", () => {
  it("R-PROC-4: non-objects, events without a string type and non-string ids fail as MALFORMED_EVENT, never a TypeError", () => {
    for (const bad of [null, 42, "RUN_STARTED", [], { messageId: "m1" }, { type: 7 }]) {
      verify([bad as unknown as AguiEvent], fails("MALFORMED_EVENT", "R-PROC-4", 0));
    }
    verify(
      [RS(), RMS("m1"), { type: "REASONING_MESSAGE_CONTENT", messageId: 7, delta: "x" }],
      fails("MALFORMED_EVENT", "R-PROC-4", 2),
    );
    verify([RS(), { type: "STEP_STARTED" }], fails("MALFORMED_EVENT", "R-PROC-4", 1));
    verify([RS(), { type: "SUBAGENT_STARTED", name: "x" }], fails("MALFORMED_EVENT", "R-PROC-4", 1));
    verify([RS(), SubS("B", { parentSubagentRunId: 5 })], fails("MALFORMED_EVENT", "R-PROC-4", 1));
    // Malformed message lists only skip role bookkeeping (their shape is enforcement's to judge).
    verify([
      RS("r1", { input: { messages: [null, { id: 1 }, "x"] } }),
      { type: "MESSAGES_SNAPSHOT", messages: [7, { role: "user" }] },
      RF(),
    ]);
    verify([RS("r1", { input: null }), { type: "MESSAGES_SNAPSHOT", messages: "nope" }, RF()]);
  });

  it("R-EVT-9: ids are opaque: '__proto__', 'constructor' and '' are ordinary ids in every set", () => {
    const ids = ["__proto__", "constructor", ""];
    const opens = ids.flatMap((id) => [RSt(id), RMS(id), TCS(id), SS(id), SubS(id)]);
    const closes = ids.flatMap((id) => [RMC(id), TCA(id), REnd(id), RME(id), TCE(id), SF(id), SubF(id)]);
    verify([RS(), ...opens, ...closes, RF()]);
    verify(
      [RS(), TMS("__proto__"), TME("__proto__"), RMS("__proto__")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 3, ["__proto__"]),
    );
    verify([RS(), RMC("__proto__")], fails("ORPHAN_CONTENT", "R-REASON-9", 1, ["__proto__"]));
  });

  it("R-EVT-12: a step forwards the same event object and returns the same state and result (hot path)", () => {
    const stage = createVerifyStage();
    const s0 = stage.init();
    const start = stage.step(s0, RS(), { index: 0 });
    expect(start.state).toBe(s0);
    stage.step(s0, RMS("m1"), { index: 1 });
    const content = RMC("m1", "x");
    const r1 = stage.step(s0, content, { index: 2 });
    expect(r1.state).toBe(s0);
    expect(r1.out).toEqual([content]);
    expect(r1.out[0]).toBe(content);
    expect(r1.warnings).toHaveLength(0);
    const again = RMC("m1", "y");
    const r2 = stage.step(s0, again, { index: 3 });
    expect(r2).toBe(r1);
    expect(r2.out[0]).toBe(again);
  });

  it("R-RUN-11: each subscription (init) has its own state; initialMessages seed every one", () => {
    const stage = createVerifyStage({ initialMessages: [{ id: "a1", role: "assistant", content: "hi" }] });
    const first = runStage(stage, [RS(), RMS("m1")]);
    expect(first.error).toMatchObject({ code: "RUN_TRUNCATED", ids: ["m1"] });
    const second = runStage(stage, [RS(), RMS("m1"), RME("m1"), RF()]);
    expect(second.error).toBeUndefined();
    expect(runStage(stage, [RS(), RMS("a1")]).error).toMatchObject({ code: "ID_ROLE_CONFLICT", eventIndex: 1 });
  });

  it("D-TRUNC: errors list at most 50 ids but count them all", () => {
    const events = [RS(), ...Array.from({ length: 60 }, (_, i) => TCS(`tc${i}`))];
    const r = runStage(createVerifyStage(), events);
    const error = r.error as ReasoningProtocolError;
    expect(error.code).toBe("RUN_TRUNCATED");
    expect(error.ids).toEqual(Array.from({ length: 50 }, (_, i) => `tc${i}`));
    expect(error.message).toContain("60 open items, the first 50 listed");
  });
});

// What the verifier's diagnostics say beyond code, rule and index: the ids and the run, owner and
// family they name (an error names the event index, type, ids and the rule; D-REDACT: never content).
// Each was a surviving mutant of `npm run mutation` (docs/mutation.md).
describe("verifyDiscipline — what its diagnostics name", () => {
  // The sentence after `CODE (rule) at event #i TYPE [ids]: `.
  const detailOf = (error: unknown): string => {
    expect(error).toBeInstanceOf(ReasoningProtocolError);
    const { message, eventType } = error as ReasoningProtocolError;
    const after = message.indexOf(eventType) + eventType.length;
    return message.slice(message.indexOf(": ", after) + 2);
  };
  const unnamedRun = (extra: Record<string, unknown> = {}): AguiEvent => ({
    type: "RUN_STARTED",
    threadId: "t1",
    ...extra,
  });

  it("R-RUN-9: a nested RUN_STARTED names the open run (ids and detail); a runId that is not a string is named nowhere", () => {
    const nested = verify([RS("r1"), RS("r2")], fails("NESTED_RUN", "R-RUN-9", 1, ["r1", "r2"]))!;
    expect(detailOf(nested)).toContain("while a run is still active (run 'r1'); it must end");
    const unnamed = verify([unnamedRun(), unnamedRun({ runId: 5 })], fails("NESTED_RUN", "R-RUN-9", 1, []))!;
    expect(detailOf(unnamed)).toContain("while a run is still active; it must end");
  });

  it("D-TRUNC: RUN_TRUNCATED names the open run and each open item with its family; 'listed' only past 50", () => {
    const named = verify([RS("r1"), RMS("m1"), TCS("tc1")], fails("RUN_TRUNCATED", "D-TRUNC", 3, ["m1", "tc1"]))!;
    expect(detailOf(named)).toBe(
      "The source completed while run 'r1' was open, without RUN_FINISHED or RUN_ERROR " +
        "(2 open items: reasoning message 'm1', tool call 'tc1'); a truncated run has no outcome.",
    );
    const unnamed = verify([unnamedRun()], fails("RUN_TRUNCATED", "D-TRUNC", 1))!;
    expect(detailOf(unnamed)).toBe(
      "The source completed while a run was open, without RUN_FINISHED or RUN_ERROR (0 open items); a truncated run has no outcome.",
    );
    // Exactly MAX_LISTED_IDS open: all listed, nothing said about a cut.
    const fifty = runStage(createVerifyStage(), [RS(), ...Array.from({ length: 50 }, (_, i) => TCS(`tc${i}`))]);
    expect((fifty.error as ReasoningProtocolError).ids).toHaveLength(50);
    expect(detailOf(fifty.error)).toContain("(50 open items: tool call 'tc0', ");
    expect(detailOf(fifty.error)).not.toContain("listed");
  });

  it("D-TRUNC: per-owner items (steps) are listed up to 50 too, counted in full", () => {
    const r = runStage(createVerifyStage(), [RS(), ...Array.from({ length: 51 }, (_, i) => SS(`s${i}`, sub("A")))]);
    const error = r.error as ReasoningProtocolError;
    expect(error.ids).toEqual(Array.from({ length: 50 }, (_, i) => `s${i}`));
    expect(detailOf(error)).toContain("(51 open items, the first 50 listed: step 's0', ");
  });

  it("D-RUN-ID: RUN_ID_MISMATCH's message names each differing field with both values", () => {
    const r = runStage(createVerifyStage(), [RS("r1"), ev.runFinished("r2", { threadId: "t2" })]);
    expect(r.warnings.map((w) => [w.message, w.ids])).toEqual([
      [
        "RUN_FINISHED names runId 'r2' (RUN_STARTED had 'r1') and threadId 't2' (RUN_STARTED had 't1'); the run ends as usual",
        ["r1", "r2", "t1", "t2"],
      ],
    ]);
  });

  it("D-RUN-ID: only strings on both sides are compared: a RUN_STARTED without a string runId/threadId, or an end naming a number, warns nothing", () => {
    const quiet = (events: readonly AguiEvent[]): void => {
      const r = runStage(createVerifyStage(), events);
      expect(r.error).toBeUndefined();
      expect(r.out).toHaveLength(events.length);
      expect(r.warnings).toEqual([]);
    };
    quiet([RS("r1", { threadId: 7 }), RF("r1")]);
    quiet([unnamedRun(), RF("r1")]);
    quiet([RS("r1"), { type: "RUN_FINISHED", threadId: "t1", runId: 5 }]);
    quiet([RS("r1"), { type: "RUN_ERROR", message: "boom", runId: 5 }]);
  });

  it("D-RUN-ID: a RUN_ERROR naming another run is forwarded with its warning; a late RUN_ERROR after RUN_FINISHED ends no run and warns nothing", () => {
    const error: AguiEvent = { type: "RUN_ERROR", message: "boom", runId: "r9" };
    const errored = runStage(createVerifyStage(), [RS("r1"), error]);
    expect(errored.out[1]).toBe(error);
    expect(errored.warnings.map((w) => w.code)).toEqual(["RUN_ID_MISMATCH"]);
    const late = runStage(createVerifyStage(), [RS("r1"), RF("r1"), error]);
    expect(late.error).toBeUndefined();
    expect(late.out).toHaveLength(3);
    expect(late.warnings).toEqual([]);
  });

  it("R-RUN-4: a RUN_FINISHED whose outcome is null is no cancellation: the open family's own rule, never a TypeError", () => {
    verify([RS(), RMS("m1"), RF("r1", { outcome: null })], fails("OPEN_AT_RUN_FINISHED", "R-REASON-13", 2, ["m1"]));
    verify([RS(), TMS("a1"), RF("r1", { outcome: "cancelled" })], fails("OPEN_AT_RUN_FINISHED", "R-TEXT-9", 2, ["a1"]));
  });

  it("R-SUB-2: an attribution mismatch names the opener's owner: the parent agent or the subagent", () => {
    const ofParent = verify(
      [RS(), TMS("m1"), TMC("m1", "x", sub("B"))],
      fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["m1"]),
    )!;
    expect(detailOf(ofParent)).toBe(
      "subagentRunId 'B' does not match the text message 'm1' opener's owner (the parent agent).",
    );
    const ofSubagent = verify(
      [RS(), TMS("m1", sub("A")), TMC("m1", "x", sub("B"))],
      fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["m1"]),
    )!;
    expect(detailOf(ofSubagent)).toBe(
      "subagentRunId 'B' does not match the text message 'm1' opener's owner (subagent 'A').",
    );
  });

  it("R-PROC-4 R-SUB-1: MALFORMED_EVENT says what the event or field is instead (null, a type name)", () => {
    const detail = (events: readonly AguiEvent[], index: number, rule = "R-PROC-4"): string =>
      detailOf(verify(events, fails("MALFORMED_EVENT", rule, index)));
    expect(detail([null as unknown as AguiEvent], 0)).toBe("The event is not an object.");
    expect(detail([42 as unknown as AguiEvent], 0)).toBe("The event is not an object.");
    expect(detail([{ type: 7 } as unknown as AguiEvent], 0)).toBe("The event is an object without a string type.");
    expect(detail([RS(), { type: "REASONING_MESSAGE_START", messageId: null }], 1)).toBe(
      "/messageId must be a string (got null).",
    );
    expect(detail([RS(), { type: "REASONING_MESSAGE_START", messageId: 7 }], 1)).toBe(
      "/messageId must be a string (got number).",
    );
    expect(detail([RS(), RMS("m1", { subagentRunId: null })], 1, "R-SUB-1")).toContain("(got null)");
    expect(detail([RS(), RMS("m1", { subagentRunId: 5 })], 1, "R-SUB-1")).toContain("(got number)");
  });

  it("R-RUN-12: a step no one has open, finished by the parent after a subagent's step of that name, is an orphan END, not a mismatch", () => {
    verify(
      [RS(), SS("plan", sub("A")), SF("plan", sub("A")), SF("plan")],
      fails("ORPHAN_END", "R-RUN-12", 3, ["plan"]),
    );
    // Another owner's steps of other names: an orphan too (never a TypeError).
    verify([RS(), SS("x", sub("A")), SF("y")], fails("ORPHAN_END", "R-RUN-12", 2, ["y"]));
    // Open under another owner: finished by whoever started it.
    verify([RS(), SS("plan", sub("A")), SF("plan")], fails("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["plan"]));
  });

  it("D-SNAPSHOT-ROLE: an orphan names another message family only when that family holds the id open", () => {
    const generic = "(one that was not started, or has already ended).";
    // Nothing open at all.
    expect(verify([RS(), TMC("m9")], fails("ORPHAN_CONTENT", "R-TEXT-9", 1, ["m9"]))!.message).toContain(generic);
    // Open as a tool call (not a message family), or as a text message for a tool call's ARGS.
    expect(verify([RS(), TCS("x"), TMC("x")], fails("ORPHAN_CONTENT", "R-TEXT-9", 2, ["x"]))!.message).toContain(
      generic,
    );
    expect(verify([RS(), TMS("m1"), TCA("m1")], fails("ORPHAN_CONTENT", "R-TOOL-6", 2, ["m1"]))!.message).toContain(
      generic,
    );
  });

  it("D-ROLE-CONFLICT: a span, a tool call or a step declares no role: a message of its id later still conflicts", () => {
    verify(
      [RS(), RSt("x"), REnd("x"), TMS("x"), TME("x"), RMS("x")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 5, ["x"]),
    );
    verify(
      [RS(), TCS("x"), TCE("x"), TMS("x"), TME("x"), RMS("x")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 5, ["x"]),
    );
  });

  it("D-ROLE-CONFLICT: a listed message without a string role declares none; RUN_STARTED's input echo adds ids, never overrides a known role", () => {
    // `{ id }` without a role: m1 is unknown, so the text START declares it an answer.
    verify([RS(), TMS("m1"), TME("m1"), RMS("m1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 3, ["m1"]), {
      initialMessages: [{ id: "m1" } as unknown as Message],
    });
    // A role that is not a string: nothing known, a reasoning START passes.
    verify([RS(), RMS("m1"), RME("m1"), RF()], undefined, {
      initialMessages: [{ id: "m1", role: 5 } as unknown as Message],
    });
    const echo = { threadId: "t1", runId: "r1", messages: [{ id: "m1", role: "reasoning", content: "x" }] };
    verify([RS("r1", { input: echo }), RMS("m1")], fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 1, ["m1"]), {
      initialMessages: [{ id: "m1", role: "assistant", content: "hi" }],
    });
  });
});

// The verifier's side of the delta lane (src/pipeline/delta-lane.ts arms only when these hold) and of a
// MESSAGES_SNAPSHOT's bookkeeping, asked directly.
describe("verifyDiscipline — the predicates the delta lane asks, and what a snapshot forgets", () => {
  // The state between two events (no end of the source: an open run stays open).
  const stateAfter = (events: readonly AguiEvent[]) => {
    const stage = createVerifyStage();
    return events.reduce((state, event, index) => stage.step(state, event, { index }).state, stage.init());
  };

  it("R-STREAM-4 R-SUB-2: passesAsContinuation holds for a CONTENT/ARGS of an open item in an active run, untagged or by its owner", () => {
    const state = stateAfter([RS(), RMS("m1"), TMS("a1", sub("A")), TCS("tc1")]);
    expect(passesAsContinuation(state, "REASONING_MESSAGE_CONTENT", "m1", undefined)).toBe(true);
    expect(passesAsContinuation(state, "TEXT_MESSAGE_CONTENT", "a1", undefined)).toBe(true);
    expect(passesAsContinuation(state, "TEXT_MESSAGE_CONTENT", "a1", "A")).toBe(true);
    expect(passesAsContinuation(state, "TOOL_CALL_ARGS", "tc1", undefined)).toBe(true);
    // Another owner's tag, an item not open or of another family, a type that is no continuation.
    expect(passesAsContinuation(state, "TEXT_MESSAGE_CONTENT", "a1", "B")).toBe(false);
    expect(passesAsContinuation(state, "REASONING_MESSAGE_CONTENT", "m1", "A")).toBe(false);
    expect(passesAsContinuation(state, "TEXT_MESSAGE_CONTENT", "m1", undefined)).toBe(false);
    expect(passesAsContinuation(state, "TEXT_MESSAGE_CONTENT", "nope", undefined)).toBe(false);
    expect(passesAsContinuation(state, "TEXT_MESSAGE_START", "a1", undefined)).toBe(false);
    expect(passesAsContinuation(state, "CUSTOM", "a1", undefined)).toBe(false);
    // Closed, or outside a run.
    expect(
      passesAsContinuation(stateAfter([RS(), RMS("m1"), RME("m1")]), "REASONING_MESSAGE_CONTENT", "m1", undefined),
    ).toBe(false);
    expect(
      passesAsContinuation(stateAfter([RS(), RMS("m1"), RE()]), "REASONING_MESSAGE_CONTENT", "m1", undefined),
    ).toBe(false);
  });

  it("D-SNAPSHOT-OPEN: isOpenMessage holds for an id open in either message family, not for a closed one or another family's", () => {
    const { sets } = stateAfter([RS(), RMS("m1"), TMS("a1"), TCS("tc1"), RSt("s1"), RMS("done"), RME("done")]);
    expect(isOpenMessage(sets, "m1")).toBe(true);
    expect(isOpenMessage(sets, "a1")).toBe(true);
    expect(isOpenMessage(sets, "tc1")).toBe(false);
    expect(isOpenMessage(sets, "s1")).toBe(false);
    expect(isOpenMessage(sets, "done")).toBe(false);
    expect(isOpenMessage(sets, "never")).toBe(false);
  });

  it("D-ROLE-CONFLICT: a snapshot forgets the roles of messages it drops — answers always, reasoning and activity messages when it restates one of that role", () => {
    const user: Message = { id: "u1", role: "user", content: "hi" };
    const thought = { id: "r2", role: "reasoning", content: "t" } as Message;
    const activity = { id: "act2", role: "activity", activityType: "plan", content: {} } as unknown as Message;
    // A dropped answer is forgotten: its id may open a reasoning message.
    verify([RS(), TMS("a1"), TME("a1"), ev.messagesSnapshot([user]), RMS("a1"), RME("a1"), RF()]);
    // A reasoning message is kept by a snapshot restating no reasoning message, forgotten by one restating another.
    verify(
      [RS(), RMS("r1"), RME("r1"), ev.messagesSnapshot([user]), TMS("r1")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 4, ["r1"]),
    );
    verify([RS(), RMS("r1"), RME("r1"), ev.messagesSnapshot([user, thought]), TMS("r1"), TME("r1"), RF()]);
    // The same for activity messages.
    verify(
      [RS(), ev.activitySnapshot("act1"), ev.messagesSnapshot([user]), RMS("act1")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 3, ["act1"]),
    );
    verify([RS(), ev.activitySnapshot("act1"), ev.messagesSnapshot([user, activity]), RMS("act1"), RME("act1"), RF()]);
    // A message open across the snapshot keeps its role.
    verify(
      [RS(), TMS("a9"), ev.messagesSnapshot([user]), TME("a9"), RMS("a9")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 4, ["a9"]),
    );
  });

  it("R-PROC-4: a snapshot whose messages are no list, or hold null, forgets nothing and never throws a TypeError", () => {
    verify(
      [RS(), TMS("a1"), TME("a1"), { type: "MESSAGES_SNAPSHOT", messages: "nope" }, RMS("a1")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 4, ["a1"]),
    );
    verify([RS(), { type: "MESSAGES_SNAPSHOT", messages: 5 }, RF()]);
    verify(
      [
        RS(),
        TMS("a1"),
        TME("a1"),
        { type: "MESSAGES_SNAPSHOT", messages: [null, { id: "r5", role: "reasoning" }] },
        TMS("r5"),
      ],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 4, ["r5"]),
    );
  });
});

describe("verifyDiscipline — roles that stand", () => {
  it("D-SNAPSHOT-ROLE D-ROLE-CONFLICT: a snapshot restating an open message's role replaces its known role (the history holds it with that role)", () => {
    const restated = ev.messagesSnapshot([{ id: "x", role: "reasoning", content: "t" }]);
    verify([RS(), TMS("x"), restated, TME("x"), RMS("x"), RME("x"), RF()]);
  });

  it("R-TEXT-5 D-ROLE-CONFLICT: an event declaring a message's role (a tool result) leaves a known role as it is", () => {
    verify(
      [RS(), RMS("x"), RME("x"), ev.toolCallResult("x", "tc1", "ok"), TMS("x")],
      fails("ID_ROLE_CONFLICT", "D-ROLE-CONFLICT", 4, ["x"]),
    );
  });

  it("R-PROC-4: a field named 'undefined' is an ordinary unknown field: no family reads it as a parent", () => {
    verify([RS(), RMS("m1", { undefined: "x" }), RME("m1"), TCS("t1", { undefined: "x" }), TCE("t1"), RF()]);
  });
});
