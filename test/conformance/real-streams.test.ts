/**
 * Real producers' streams (test/fixtures/real-streams/, provenance in its README.md): every
 * recording gets the verdict `expected.json` gives it — outcome, error code, and the warning codes
 * that must appear — through the facade and through `agui-reasoning check --json` (in-process).
 * Nothing here knows a file by name: the verdicts follow from the rules and decisions.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { lastValueFrom, toArray } from "rxjs";
import { runCheck } from "../../src/cli/check";
import { readRecording } from "../../src/cli/read-recording";
import { isReasoningProtocolError } from "../../src/core/errors";
import { runPipeline } from "../../src/testing/run-pipeline";

const DIR = resolve(__dirname, "../fixtures/real-streams");

interface Verdict {
  readonly outcome: "completed" | "failed";
  readonly code?: string;
  readonly warnings?: readonly string[];
}

const EXPECTED = JSON.parse(readFileSync(join(DIR, "expected.json"), "utf8")) as Record<string, Verdict>;
const CASES = Object.entries(EXPECTED);

async function eventsOf(file: string): Promise<unknown[]> {
  const bytes = readFileSync(join(DIR, file));
  const chunks = (async function* () {
    yield bytes;
  })();
  return lastValueFrom(readRecording(chunks).events$.pipe(toArray()));
}

async function checkJson(
  file: string,
): Promise<{ exit: number; report: { outcome?: string; error?: { code?: string }; warnings?: { code: string }[] } }> {
  let stdout = "";
  const exit = await runCheck(["check", "--json", join(DIR, file)], {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: () => true, isTTY: false },
    stdin: (async function* () {})(),
  });
  return { exit, report: JSON.parse(stdout) };
}

describe("real producers' streams (.NET, Dart, C++, Strands, Mastra)", () => {
  it("the corpus is complete: every recording has a verdict and every verdict a recording", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    for (const [file] of CASES) expect(() => readFileSync(join(DIR, file))).not.toThrow();
  });

  it.each(CASES)("R-TEXT-5 D-TOOL-RESULT-ID: %s gets its verdict through the facade", async (file, verdict) => {
    const run = runPipeline(await eventsOf(file));
    const codes = new Set(run.warnings.map((w) => w.code));
    if (verdict.outcome === "completed") {
      expect(run.error).toBeUndefined();
    } else {
      expect(isReasoningProtocolError(run.error)).toBe(true);
      expect((run.error as { code: string }).code).toBe(verdict.code);
    }
    for (const code of verdict.warnings ?? []) expect(codes).toContain(code);
  });

  it.each(CASES)("R-TEXT-5 D-TOOL-RESULT-ID: %s gets its verdict from `check --json`", async (file, verdict) => {
    const { exit, report } = await checkJson(file);
    expect(report.outcome).toBe(verdict.outcome);
    expect(exit).toBe(verdict.outcome === "completed" ? 0 : 1);
    if (verdict.outcome === "failed") expect(report.error?.code).toBe(verdict.code);
    const codes = new Set((report.warnings ?? []).map((w) => w.code));
    for (const code of verdict.warnings ?? []) expect(codes).toContain(code);
  });
});
