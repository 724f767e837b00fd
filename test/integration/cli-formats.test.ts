/**
 * The machine-readable outputs of `agui-reasoning check` (issue 14): `--json` against its shipped,
 * versioned JSON Schema; `--format github` workflow commands; `--format junit` XML with one test
 * case per run.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import { ev } from "../../src/testing/builders";
import { check, jsonl, useTempFiles } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const file = useTempFiles("agui-cli-formats-");
const THOUGHT = "formats-SECRET-THOUGHT";
const VALUE = "gAAAAA-formats-SECRET-VALUE==";

const valid = [
  ev.runStarted("r1"),
  ev.reasoningChunk("m1", THOUGHT),
  ev.reasoningChunk(undefined, THOUGHT),
  ev.encryptedValue("message", "m1", VALUE),
  ev.encryptedValue("message", "nobody", VALUE),
  ev.runFinished("r1"),
  ev.runStarted("r2"),
  ev.runError("failed upstream"),
];
const violating = [
  ev.runStarted("r1"),
  ev.runFinished("r1"),
  ev.runStarted("r2"),
  ev.reasoningMessageStart("m1"),
  ev.runFinished("r2"),
];
const truncated = [ev.runStarted("r1"), ev.reasoningMessageStart("m1")];

const schema = JSON.parse(readFileSync(join(ROOT, "schema/check-result.v1.json"), "utf8")) as Record<string, unknown>;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

describe("--json follows schema/check-result.v1.json", () => {
  it("the schema is shipped in the package (files, exports) and versioned", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      files: string[];
      exports: Record<string, unknown>;
    };
    expect(pkg.files).toContain("schema");
    expect(pkg.exports["./schema/*"]).toBe("./schema/*");
    expect((schema.properties as Record<string, { const?: number }>).schemaVersion!.const).toBe(1);
  });

  it.each([
    ["a valid stream with warnings and a producer RUN_ERROR", valid, 0],
    ["a violation", violating, 1],
    ["a truncated run", truncated, 1],
    ["no run", [], 1],
  ] as const)("R-PROC-19: %s validates against the schema", async (_label, events, exit) => {
    const r = await check(["check", file(`${_label.replace(/\W+/g, "-")}.jsonl`, jsonl(events)), "--json"]);
    expect(r.code).toBe(exit);
    const out = JSON.parse(r.stdout) as unknown;
    expect(validate(out) ? [] : validate.errors).toEqual([]);
    expect((out as { outcome: string }).outcome).toBe(exit === 0 ? "completed" : "failed");
  });

  it("the schema rejects a document that breaks it (the validation can fail)", async () => {
    const out = JSON.parse((await check(["check", file("v.jsonl", jsonl(violating)), "--json"])).stdout) as Record<
      string,
      unknown
    >;
    expect(validate({ ...out, outcome: "passed" })).toBe(false);
    expect(validate({ ...out, error: { code: "X" } })).toBe(false);
    const { counts: _counts, ...withoutCounts } = out;
    expect(validate(withoutCounts)).toBe(false);
  });
});

describe("--format github", () => {
  it("R-REASON-13: a violation is an ::error annotation on the file and line, warnings are ::warning, exit 1", async () => {
    const path = file(
      "gh-violation.jsonl",
      jsonl([...violating.slice(0, 3), ev.encryptedValue("message", "nobody", VALUE), ...violating.slice(3)]),
    );
    const r = await check(["check", path, "--format", "github"]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      new RegExp(
        `^::error file=${path.replace(/[/.]/g, "\\$&")},line=6,title=OPEN_AT_RUN_FINISHED \\(R-[A-Z]+-\\d+\\)::OPEN_AT_RUN_FINISHED at event #5 RUN_FINISHED: `,
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^::warning file=${path.replace(/[/.]/g, "\\$&")},line=4,title=UNKNOWN_ENTITY \\(D-UNKNOWN-ENTITY\\)::\\[agui-reasoning\\] UNKNOWN_ENTITY`,
      ),
    );
    expect(lines[2]).toBe(`agui-reasoning check: ${path}: ✗ OPEN_AT_RUN_FINISHED: 2 runs, 1 warning (exit 1)`);
    expect(r.stdout).not.toContain(VALUE);
  });

  it("R-PROC-4: a valid stream prints its warnings and a ✓ summary, exit 0; workflow-command characters are escaped", async () => {
    const path = file("gh,valid:1.jsonl", jsonl(valid));
    const r = await check(["check", path, "--format", "github"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `::warning file=${path.replace(/,/g, "%2C").replace(/:/g, "%3A")},line=5,title=UNKNOWN_ENTITY`,
    );
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(`agui-reasoning check: ${path}: ✓ valid: 2 runs, 1 warning`);
    expect(r.stdout).not.toContain(THOUGHT);
    expect(r.stdout).not.toContain(VALUE);
  });

  it("R-PROC-4: from stdin the annotations name no file", async () => {
    const r = await check(["check", "-", "--format", "github"], jsonl(violating));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^::error title=OPEN_AT_RUN_FINISHED /);
  });

  it("R-RUN-1: NO_RUN is an ::error without a line", async () => {
    const path = file("gh-empty.jsonl", "");
    const r = await check(["check", path, "--format", "github"]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(
      /^::error file=[^,]+,title=NO_RUN \(R-RUN-1\)::NO_RUN: the stream holds no run/,
    );
  });
});

describe("--format junit", () => {
  it("R-REASON-13: one test case per run; the run that failed carries the failure; valid XML characters only", async () => {
    const path = file("junit-violation.jsonl", jsonl(violating));
    const r = await check(["check", path, "--format", "junit"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="agui-reasoning check" tests="2" failures="1" errors="0">/,
    );
    const cases = r.stdout.match(/<testcase [^>]*?\/?>/g) ?? [];
    expect(cases).toEqual([
      `<testcase classname="agui-reasoning" name="run 1 (runId r1)"/>`,
      `<testcase classname="agui-reasoning" name="run 2 (runId r2)">`,
    ]);
    expect(r.stdout).toMatch(
      /<failure type="OPEN_AT_RUN_FINISHED" message="OPEN_AT_RUN_FINISHED \(R-[A-Z]+-\d+\): [^"]+">OPEN_AT_RUN_FINISHED/,
    );
    expect(r.stdout.match(/<failure /g)).toHaveLength(1);
  });

  it("R-PROC-4: a valid stream has no failure; warnings go to system-out; a stream without a run is one failing case", async () => {
    const ok = await check(["check", file("junit-valid.jsonl", jsonl(valid)), "--format", "junit"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('tests="2" failures="0"');
    expect(ok.stdout).toContain("<system-out>1 warning\n[agui-reasoning] UNKNOWN_ENTITY");
    expect(ok.stdout).not.toContain("<failure");
    expect(ok.stdout).not.toContain(VALUE);
    const empty = await check(["check", file("junit-empty.jsonl", ""), "--format", "junit"]);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain(`<testcase classname="agui-reasoning" name="stream">\n      <failure type="NO_RUN"`);
  });

  it("R-PROC-4: labels with XML metacharacters are escaped", async () => {
    const path = file("a&b<c>.jsonl", jsonl(valid));
    const r = await check(["check", path, "--format", "junit"]);
    expect(r.stdout).toContain(
      `<testsuite name="${path.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}"`,
    );
  });
});
