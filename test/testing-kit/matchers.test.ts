import { from, of, Observable } from "rxjs";
import { verifyDiscipline } from "../../src";
import { createVerifyStage, runStage } from "../../src/stages";
import { collectWarnings, ev, installReasoningMatchers, reasoningMatchers, runPipeline } from "../../src/testing";

installReasoningMatchers();

/** The failure message jest would print for `run`, or undefined when it passes. */
function failureMessage(run: () => void): string | undefined {
  try {
    run();
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

const orphan = [ev.runStarted(), ev.reasoningMessageContent("m1", "secret delta")];

describe("testing kit: toFailWithCode", () => {
  it("R-REASON-9: an array of events runs through the whole pipeline", () => {
    expect(orphan).toFailWithCode("ORPHAN_CONTENT");
    expect(orphan).toFailWithCode("ORPHAN_CONTENT", {
      rule: "R-REASON-9",
      eventIndex: 1,
      eventType: "REASONING_MESSAGE_CONTENT",
      ids: ["m1"],
    });
    expect([ev.runStarted(), ev.runFinished()]).not.toFailWithCode("ORPHAN_CONTENT");
  });

  it("R-RUN-1: a synchronous Observable, a function, an error and run results are accepted", () => {
    const outside = [ev.reasoningStart("s1")];
    expect(from(outside).pipe(verifyDiscipline())).toFailWithCode("EVENT_OUTSIDE_RUN");
    expect(() => from(outside).pipe(verifyDiscipline())).toFailWithCode("EVENT_OUTSIDE_RUN");
    expect(runStage(createVerifyStage(), outside)).toFailWithCode("EVENT_OUTSIDE_RUN", { eventIndex: 0 });
    expect(runPipeline(outside)).toFailWithCode("EVENT_OUTSIDE_RUN");
    expect(runPipeline(outside).error).toFailWithCode("EVENT_OUTSIDE_RUN");
  });

  it("fails when the stream completes, fails with another code, other fields, or a non-protocol error", () => {
    expect(
      failureMessage(() => expect([ev.runStarted(), ev.runFinished()]).toFailWithCode("ORPHAN_CONTENT")),
    ).toContain("expected a ReasoningProtocolError ORPHAN_CONTENT, but the stream did not fail");
    expect(failureMessage(() => expect(orphan).toFailWithCode("ORPHAN_END"))).toContain(
      'expected a failure {"code":"ORPHAN_END"}, got {"code":"ORPHAN_CONTENT"}',
    );
    expect(failureMessage(() => expect(orphan).toFailWithCode("ORPHAN_CONTENT", { eventIndex: 3 }))).toContain(
      'got {"code":"ORPHAN_CONTENT","eventIndex":1}',
    );
    expect(failureMessage(() => expect(new TypeError("x")).toFailWithCode("ORPHAN_CONTENT"))).toContain(
      "it failed with TypeError: x",
    );
    expect(failureMessage(() => expect(orphan).not.toFailWithCode("ORPHAN_CONTENT"))).toContain(
      "expected the stream not to fail with",
    );
  });

  it("refuses an asynchronous Observable and values it cannot read, instead of passing", () => {
    const never = new Observable<unknown>(() => {});
    expect(failureMessage(() => expect(never).toFailWithCode("ORPHAN_CONTENT"))).toContain("did not end synchronously");
    expect(failureMessage(() => expect(42).toFailWithCode("ORPHAN_CONTENT"))).toContain("received a number");
  });

  it("D-TRUNC: a misspelt code is refused with and without .not (it could never pass, or never fail)", () => {
    const truncated = [ev.runStarted()];
    expect(truncated).toFailWithCode("RUN_TRUNCATED");
    // A misspelt code neither compiles nor passes, with or without `.not` (it would pass whatever happened).
    for (const run of [
      // @ts-expect-error not an error code
      () => expect(truncated).not.toFailWithCode("RUN_TRUNCATD"),
      // @ts-expect-error not an error code
      () => expect(truncated).toFailWithCode("RUN_TRUNCATD"),
      // A warning code is no failure code.
      // @ts-expect-error not an error code
      () => expect(truncated).not.toFailWithCode("UNKNOWN_ENTITY"),
    ])
      expect(run).toThrow(
        /^agui-reasoning\/testing: toFailWithCode's code "(RUN_TRUNCATD|UNKNOWN_ENTITY)" is not one of ERROR_CODES$/,
      );
    // @ts-expect-error not an error code
    expect(() => expect([ev.runStarted(), ev.runFinished()]).not.toFailWithCode("RUN_TRUNCATD")).toThrow(TypeError);
  });

  it("D-REDACT: the failure message carries codes, fields and the redacted error message, never a delta", () => {
    const message = failureMessage(() => expect(orphan).toFailWithCode("ORPHAN_END")) ?? "";
    expect(message).toContain("ORPHAN_CONTENT");
    expect(message).not.toContain("secret delta");
  });
});

describe("testing kit: toWarnWith", () => {
  const unknownEntity = [ev.runStarted(), ev.encryptedValue("message", "nope", "opaque-secret"), ev.runFinished()];

  it("R-REASON-22: an array of events runs through the pipeline; fields narrow the match", () => {
    expect(unknownEntity).toWarnWith("UNKNOWN_ENTITY");
    expect(unknownEntity).toWarnWith("UNKNOWN_ENTITY", { ids: ["nope"], lossy: true, eventIndex: 1 });
    expect(unknownEntity).not.toWarnWith("UNKNOWN_ENTITY", { ids: ["other"] });
    expect([ev.runStarted(), ev.runFinished()]).not.toWarnWith("UNKNOWN_ENTITY");
    // A misspelt code neither compiles nor passes, with or without `.not` (it would pass whatever happened).
    // @ts-expect-error not a warning code
    expect(() => expect(unknownEntity).not.toWarnWith("UNKNWON_ENTITY")).toThrow(
      /"UNKNWON_ENTITY" is not one of WARNING_CODES/,
    );
    // @ts-expect-error not a warning code
    expect(() => expect(unknownEntity).toWarnWith("UNKNWON_ENTITY")).toThrow(/is not one of WARNING_CODES/);
  });

  it("R-PROC-6: warning arrays, collectors and run results are accepted", () => {
    const run = runPipeline([
      ev.runStarted(),
      ev.reasoningStart("s1", { title: "x" }),
      ev.reasoningEnd("s1"),
      ev.runFinished(),
    ]);
    expect(run).toWarnWith("STRIPPED_PROPERTY", { path: "/title" });
    expect(run.warnings).toWarnWith("STRIPPED_PROPERTY");
    const collector = collectWarnings();
    run.warnings.forEach(collector.onWarning);
    expect(collector).toWarnWith("STRIPPED_PROPERTY");
    expect([]).not.toWarnWith("STRIPPED_PROPERTY");
  });

  it("an array inside the received array is an event to run, never a warning, whatever fields it carries", () => {
    const arrayLikeWarning = Object.assign([], { code: "UNKNOWN_ENTITY", message: "m" });
    // Read as a warning it would pass; run as an event it is malformed and warns nothing.
    expect([arrayLikeWarning]).not.toWarnWith("UNKNOWN_ENTITY");
  });

  it("D-REDACT: the failure message lists the codes seen, never the value", () => {
    const message = failureMessage(() => expect(unknownEntity).toWarnWith("STRIPPED_PROPERTY")) ?? "";
    expect(message).toContain('expected a warning {"code":"STRIPPED_PROPERTY"}, got warnings UNKNOWN_ENTITY');
    expect(message).not.toContain("opaque-secret");
    expect(failureMessage(() => expect("x").toWarnWith("UNKNOWN_ENTITY"))).toContain("received a string");
  });
});

describe("testing kit: installReasoningMatchers", () => {
  it("installs the three matchers on the expect it is given (e.g. vitest's)", () => {
    const installed: Record<string, unknown>[] = [];
    installReasoningMatchers({ extend: (m) => installed.push(m) });
    expect(installed).toEqual([reasoningMatchers]);
    expect(Object.keys(reasoningMatchers).sort()).toEqual(["toBeConformant", "toFailWithCode", "toWarnWith"]);
  });

  it("an Observable that completes synchronously is a success", () => {
    expect(of(ev.runStarted())).not.toFailWithCode("RUN_TRUNCATED");
  });
});
