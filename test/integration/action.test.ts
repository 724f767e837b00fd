/**
 * The GitHub Action at the repository root (issue 22): a composite action running `check` on
 * recordings with SARIF upload. Its step script runs here as the action runs it, with the command
 * pointed at this checkout instead of the npm package; the SARIF log it merges is validated against
 * the SARIF 2.1.0 JSON schema (test/fixtures/sarif).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import { useTempFiles } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const file = useTempFiles("agui-action-");
const action = readFileSync(join(ROOT, "action.yml"), "utf8");
const {
  $schema: _s,
  id: _i,
  ...schema
} = JSON.parse(readFileSync(join(ROOT, "test/fixtures/sarif/sarif-2.1.0-rtm.5.json"), "utf8")) as Record<
  string,
  unknown
>;
const validate = new Ajv({ strict: false, unicodeRegExp: false, validateFormats: false }).compile(schema);

function runStep(recordings: string): { status: number | null; stdout: string; sarif: unknown } {
  const sarif = file("out.sarif", "");
  const r = spawnSync("bash", ["action/check-recordings.sh"], {
    cwd: ROOT,
    encoding: "utf8",
    env: {
      ...process.env,
      AGUI_COMMAND: `${process.execPath} --import tsx src/cli/main.ts`,
      AGUI_RECORDINGS: recordings,
      AGUI_SARIF: sarif,
      AGUI_ARGS: "",
    },
  });
  return { status: r.status, stdout: r.stdout, sarif: JSON.parse(readFileSync(sarif, "utf8") || "null") };
}

describe("action.yml", () => {
  it("is a composite action with the documented inputs, running the step script and uploading SARIF", () => {
    expect(action).toMatch(/^runs:\n {2}using: composite$/m);
    for (const input of ["recordings", "args", "version", "sarif", "upload"])
      expect(action).toMatch(new RegExp(`^ {2}${input}:$`, "m"));
    expect(action).toContain('bash "${{ github.action_path }}/action/check-recordings.sh"');
    expect(action).toContain("uses: github/codeql-action/upload-sarif@v3");
    expect(readFileSync(join(ROOT, "docs/cli.md"), "utf8")).toContain("uses: agui-reasoning/agui-reasoning@");
  });

  it("R-REASON-9 R-PROC-19: the step checks every recording, merges one valid SARIF log, and fails when one fails", () => {
    const r = runStep("examples/recorded/anthropic-style-thinking.jsonl examples/recorded/broken-orphan-*.jsonl");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("agui-reasoning check: examples/recorded/anthropic-style-thinking.jsonl: ✓ valid");
    expect(r.stdout).toContain(
      "::error file=examples/recorded/broken-orphan-content.jsonl::agui-reasoning check failed",
    );
    expect(validate(r.sarif) ? [] : validate.errors).toEqual([]);
    const runs = (r.sarif as { runs: { results: { ruleId: string }[] }[] }).runs;
    expect(runs.map((run) => run.results.map((x) => x.ruleId))).toEqual([[], ["ORPHAN_CONTENT"]]);
  }, 60_000);

  it("R-PROC-4: valid recordings pass; a pattern matching nothing fails", () => {
    expect(runStep("examples/recorded/anthropic-style-thinking.jsonl").status).toBe(0);
    const none = spawnSync("bash", ["action/check-recordings.sh"], {
      cwd: ROOT,
      encoding: "utf8",
      env: {
        ...process.env,
        AGUI_COMMAND: "false",
        AGUI_RECORDINGS: "nothing/*.jsonl",
        AGUI_SARIF: file("n.sarif", ""),
      },
    });
    expect(none.status).toBe(2);
    expect(none.stdout).toContain("::error::agui-reasoning: no recording matches nothing/*.jsonl");
  }, 60_000);
});
