/**
 * `check` as a CI gate on warnings (issue 22): `--max-warnings N` (ESLint's convention: 0 fails on
 * any warning), `--fail-on-lossy` (a stream that lost a value or content fails), and repeated
 * warnings grouped with a count in the human report.
 */
import { ev } from "../../src/testing/builders";
import { check, jsonl, useTempFiles } from "./cli-support";

const file = useTempFiles("agui-cli-gates-");
/** A valid run whose encrypted value names no message: a lossy UNKNOWN_ENTITY (the value is lost). */
const lostValue = [ev.runStarted("r1"), ev.encryptedValue("message", "nobody", "gAAAA-lost=="), ev.runFinished("r1")];
/** A legacy THINKING_* turn: 22 non-lossy THINKING_UPCAST warnings, one per legacy event. */
const legacy = [
  ev.runStarted("r1"),
  ev.thinkingStart(),
  ev.thinkingTextMessageStart(),
  ...Array.from({ length: 18 }, (_, i) => ev.thinkingTextMessageContent(`t${i}`)),
  ev.thinkingTextMessageEnd(),
  ev.thinkingEnd(),
  ev.runFinished("r1"),
];

describe("--max-warnings and --fail-on-lossy", () => {
  it("D-WARN R-VER-7: a stream that lost a value is valid by default, fails with --fail-on-lossy and --max-warnings 0", async () => {
    const path = file("lost.jsonl", jsonl(lostValue));
    const plain = await check(["check", path]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("✓ valid: 1 run, 1 warning");

    const lossy = await check(["check", path, "--fail-on-lossy"]);
    expect(lossy.code).toBe(1);
    expect(lossy.stdout).toContain("✗ Lossy warnings: LOSSY_WARNINGS (R-VER-7)");
    expect(lossy.stdout).toContain("LOSSY_WARNINGS (R-VER-7): 1 lossy warning (--fail-on-lossy)");
    expect(lossy.stdout).toContain("✗ lossy warnings: 1 run, 1 warning (exit 1)");

    const none = await check(["check", path, "--max-warnings", "0"]);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("✗ Too many warnings: MAX_WARNINGS (D-WARN)");
    expect(none.stdout).toContain("MAX_WARNINGS (D-WARN): 1 warning, more than --max-warnings 0 allows");
    expect((await check(["check", path, "--max-warnings", "1"])).code).toBe(0);

    const json = JSON.parse((await check(["check", path, "--max-warnings", "0", "--json"])).stdout);
    expect([json.outcome, json.error.code, json.error.eventIndex]).toEqual(["failed", "MAX_WARNINGS", null]);
    const github = await check(["check", path, "--fail-on-lossy", "--format", "github"]);
    expect(github.stdout.split("\n")[0]).toMatch(/^::error file=.*,title=LOSSY_WARNINGS \(R-VER-7\)::LOSSY_WARNINGS: /);
  });

  it("D-WARN R-VER-7: --fail-on-lossy lets non-lossy warnings pass; a violation stays the failure reported", async () => {
    const path = file("legacy.jsonl", jsonl(legacy));
    const r = await check(["check", path, "--fail-on-lossy"]);
    expect(r.code).toBe(0);
    expect((await check(["check", path, "--max-warnings", "21"])).code).toBe(1);
    expect((await check(["check", path, "--max-warnings", "22"])).code).toBe(0);
    const broken = file("broken.jsonl", jsonl([...lostValue.slice(0, 2), ev.reasoningMessageContent("ghost", "x")]));
    const v = await check(["check", broken, "--fail-on-lossy", "--json"]);
    expect(JSON.parse(v.stdout).error.code).toBe("ORPHAN_CONTENT");
  });

  it("R-PROC-4: --max-warnings needs a whole number", async () => {
    for (const bad of ["-1", "x", "1.5"]) {
      const r = await check(["check", "a.jsonl", "--max-warnings", bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("--max-warnings");
    }
  });
});

describe("repeated warnings are grouped", () => {
  it("D-WARN: a legacy THINKING_* turn prints one line per code and a count, not 22 lines", async () => {
    const r = await check(["check", file("legacy.jsonl", jsonl(legacy))]);
    const lines = r.stdout.split("\n");
    const warningLines = lines.filter((l) => l.startsWith("    [agui-reasoning]"));
    expect(warningLines.map((l) => /\] (\w+)/.exec(l)![1])).toEqual(["THINKING_UPCAST"]);
    expect(r.stdout).toContain(
      "      + 21 more THINKING_UPCAST, at events #2, #3, #4, #5, #6, #7, #8, #9, #10, #11, … (--json lists them all)",
    );
    expect(r.stdout).toMatch(/warnings\s+22\n/);
    expect(
      JSON.parse((await check(["check", file("legacy.jsonl", jsonl(legacy)), "--json"])).stdout).warnings,
    ).toHaveLength(22);
  });
});
