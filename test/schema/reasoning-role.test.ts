/**
 * R-SCHEMA-2 (#30, #31, digest §22 Q12): a REASONING_MESSAGE_START whose role is not "reasoning", or that has
 * none, is fatal (the conformance fixture `reasoning-message-wrong-role-fatal`). Producers built on a pre-1.0
 * AG-UI SDK send "assistant" (its type said so) or no role: the error names the rule that decides it and says
 * what to do, never the content (D-REDACT).
 */
import { ReasoningProtocolError } from "../../src";
import { ev } from "../../src/testing/builders";
import { runPipeline } from "../../src/testing/run-pipeline";

const start = (role: unknown) => {
  const event: Record<string, unknown> = { ...ev.reasoningMessageStart("m1") };
  if (role === undefined) delete event.role;
  else event.role = role;
  return event;
};

describe("R-SCHEMA-2 a reasoning message's role", () => {
  it.each([
    ["assistant", "assistant"],
    ["missing", undefined],
    ["a number", 7],
  ])("R-SCHEMA-2 #30 #31 %s: MALFORMED_EVENT naming R-SCHEMA-2 and what to do, at the START's index", (_name, role) => {
    const run = runPipeline([ev.runStarted(), start(role), ev.reasoningMessageContent("m1", "secret thought")]);
    expect(run.error).toBeInstanceOf(ReasoningProtocolError);
    const error = run.error as ReasoningProtocolError;
    expect([error.code, error.rule, error.eventIndex, error.eventType]).toEqual([
      "MALFORMED_EVENT",
      "R-SCHEMA-2",
      1,
      "REASONING_MESSAGE_START",
    ]);
    expect(error.message).toContain("/role");
    expect(error.message).toContain('role is required and fixed, "reasoning"');
    expect(error.message).toContain("update the producer's SDK");
    expect(error.message).not.toContain("secret");
  });

  it("R-REASON-23 another field of the START (its messageId) still names R-REASON-23, without the role's advice", () => {
    const run = runPipeline([ev.runStarted(), { type: "REASONING_MESSAGE_START", messageId: 5, role: "reasoning" }]);
    const error = run.error as ReasoningProtocolError;
    expect([error.code, error.rule]).toEqual(["MALFORMED_EVENT", "R-REASON-23"]);
    expect(error.message).not.toContain("SDK");
  });
});
