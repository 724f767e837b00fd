/**
 * `expect(events).toBeConformant(options?)` (issue 22): `agui-reasoning check` in a producer's own
 * tests. It fails with the explanation the command prints (the same lines of the human report), and
 * takes the command's gates; it is a plain `expect.extend` matcher, so vitest's `expect` takes it too.
 */
import { installReasoningMatchers, reasoningMatchers, ev } from "../../src/testing";
import { check, jsonl, useTempFiles } from "../integration/cli-support";

installReasoningMatchers();
const file = useTempFiles("agui-conformant-");

const valid = [
  ev.runStarted("r1"),
  ev.reasoningStart("s1"),
  ev.reasoningChunk("m1", "thinking"),
  ev.reasoningEnd("s1"),
  ev.runFinished("r1"),
];
const mixed = [ev.runStarted("r1"), ev.reasoningMessageStart("m1"), ev.reasoningChunk("m1", "secret thought")];
const lostValue = [ev.runStarted("r1"), ev.encryptedValue("message", "nobody", "gAAAA-lost=="), ev.runFinished("r1")];

/** The message a failing `toBeConformant` gives. */
function failure(events: unknown[], options?: Parameters<typeof reasoningMatchers.toBeConformant>[1]): string {
  try {
    expect(events).toBeConformant(options);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("toBeConformant passed");
}

describe("toBeConformant", () => {
  it("R-REASON-11 R-STREAM-9: valid events pass; a violation fails with the explanation the CLI prints, no content", async () => {
    expect(valid).toBeConformant();
    const message = failure(mixed);
    const cli = await check(["check", file("mixed.jsonl", jsonl(mixed))]);
    // The failure block of the human report, line for line (the CLI adds the line number of its file).
    const block = cli.stdout.split("\n\n").find((b) => b.startsWith("✗ First violation"))!;
    expect(message).toContain(block.replace(" (line 3)", ""));
    expect(message).toContain("✗ violation: 1 run, 0 warnings (exit 1)");
    expect(message).toContain("DUPLICATE_OPEN (R-REASON-11)");
    expect(message).not.toContain("secret thought");
  });

  it("D-TRUNC R-RUN-1: a truncated run and a stream without a run fail as the command does; allowEmpty accepts none", () => {
    expect(failure([ev.runStarted("r1"), ev.reasoningStart("s1")])).toContain(
      "✗ Truncated at event #2 <end of stream>: RUN_TRUNCATED (D-TRUNC)",
    );
    expect(failure([])).toContain("✗ No run: NO_RUN (R-RUN-1)");
    expect([]).toBeConformant({ allowEmpty: true });
  });

  it("D-WARN R-VER-7: maxWarnings and failOnLossy are the command's gates; .not inverts", () => {
    expect(lostValue).toBeConformant();
    expect(failure(lostValue, { failOnLossy: true })).toContain("✗ Lossy warnings: LOSSY_WARNINGS (R-VER-7)");
    expect(failure(lostValue, { maxWarnings: 0 })).toContain(
      "MAX_WARNINGS (D-WARN): 1 warning, more than --max-warnings 0 allows",
    );
    expect(lostValue).not.toBeConformant({ maxWarnings: 0 });
    expect(() => expect(valid).not.toBeConformant()).toThrow("agui-reasoning check says ✓ valid: 1 run, 0 warnings");
  });

  it("R-EVT-8: the lint rules count as warnings, as in the command", () => {
    const reused = [
      ev.runStarted("r1"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.runFinished("r1"),
      ev.runStarted("r2"),
      ev.textStart("1"),
      ev.textEnd("1"),
      ev.runFinished("r2"),
    ];
    expect(reused).toBeConformant();
    expect(failure(reused, { maxWarnings: 0 })).toContain("✗ too many warnings: 2 runs, 1 warning (exit 1)");
  });

  it("vitest's expect.extend shape: a function of (received, options) on a context, returning { pass, message() }", () => {
    const context = { isNot: false, equals: (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b) };
    const pass = reasoningMatchers.toBeConformant.call(context, valid);
    expect(pass.pass).toBe(true);
    expect(pass.message()).toContain("✓ valid");
    const fail = reasoningMatchers.toBeConformant.call(context, mixed);
    expect(fail.pass).toBe(false);
    expect(fail.message()).toMatch(
      /^expected conformant events, but agui-reasoning check says:\n✗ First violation at event #2 REASONING_MESSAGE_CHUNK/,
    );
    const notArray = reasoningMatchers.toBeConformant.call(context, "events");
    expect([notArray.pass, notArray.message()]).toEqual([false, "expected an array of events, but received a string"]);
  });
});
