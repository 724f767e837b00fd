/**
 * `agui-reasoning check` keeps counts, not lists, of warnings (issue 12, finding 7): docs/cli.md
 * promises constant memory without --json. 100,000 warnings are checked in a process whose heap is
 * capped at 40 MB; keeping every warning (as the command once did) needs more than 64 MB and dies.
 */
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { resolve } from "node:path";
import { ReportBuilder, WARNINGS_KEPT } from "../../src/cli/run-report";
import { useTempFiles } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const WARNINGS = 100_000;
const HEAP_MB = 40;
const file = useTempFiles("agui-cli-memory-");

/** A run of `n` encrypted values for unknown entities: one UNKNOWN_ENTITY warning each. */
async function manyWarnings(n: number): Promise<string> {
  const path = file("warnings.jsonl", "");
  const out = createWriteStream(path);
  const write = (line: string): Promise<void> =>
    new Promise((done) => (out.write(line) ? done() : out.once("drain", done)));
  await write(`${JSON.stringify({ type: "RUN_STARTED", threadId: "t1", runId: "r1" })}\n`);
  for (let i = 0; i < n; i++) {
    await write(
      `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"nobody-${i}","encryptedValue":"gAAAAA-memory-value-${i}"}\n`,
    );
  }
  await write(`${JSON.stringify({ type: "RUN_FINISHED", threadId: "t1", runId: "r1" })}\n`);
  await new Promise<void>((done) => out.end(done));
  return path;
}

describe("warnings are counted, not kept", () => {
  it(`D-WARN: ${WARNINGS.toLocaleString("en-US")} warnings are checked with the heap capped at ${HEAP_MB} MB; the report prints the first of the code and counts the rest`, async () => {
    const path = await manyWarnings(WARNINGS);
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (done, fail) => {
        const child = spawn(
          process.execPath,
          [`--max-old-space-size=${HEAP_MB}`, "--import", "tsx", "src/cli/main.ts", "check", path, "--no-progress"],
          {
            cwd: ROOT,
            env: { ...process.env, NO_COLOR: "1" },
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
        child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
        child.on("error", fail);
        child.on("close", (code) => done({ code, stdout, stderr }));
      },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/warnings\s+100,000\n/);
    expect(stdout.match(/ {4}\[agui-reasoning\] UNKNOWN_ENTITY/g)).toHaveLength(1);
    expect(stdout).toMatch(
      new RegExp(`\\n {6}\\+ ${(WARNINGS - 1).toLocaleString("en-US")} more UNKNOWN_ENTITY, at events (#\\d+, ){10}…`),
    );
    expect(stdout).toContain("✓ valid: 1 run, 100,000 warnings");
  }, 120_000);

  it("D-WARN: a run's report keeps the first warnings and a count, whatever arrives", () => {
    const report = new ReportBuilder();
    report.onSourceEvent({ type: "RUN_STARTED", threadId: "t1", runId: "r1" }, "RUN_STARTED");
    for (let i = 0; i < 10_000; i++) report.onWarning({ code: "UNKNOWN_ENTITY", message: `w${i}` });
    const [run] = report.all();
    expect(run!.warnings).toBe(10_000);
    expect(run!.warningsShown.map((w) => w.message)).toEqual(Array.from({ length: WARNINGS_KEPT }, (_, i) => `w${i}`));
    expect([...run!.warningGroups.values()].map((g) => [g.first.message, g.count])).toEqual([["w0", 10_000]]);
  });
});
