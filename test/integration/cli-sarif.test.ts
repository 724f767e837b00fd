/**
 * `check --format sarif` (issue 22): a SARIF 2.1.0 log for code scanning, validated against the
 * SARIF 2.1.0 JSON schema vendored in test/fixtures/sarif (never fetched at test time; see its
 * SOURCE.md): the failure is an `error` result on the recording's file and line, warnings are
 * `warning` results, one rule per code with its rule id, nothing from the stream's content.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import { ev } from "../../src/testing/builders";
import { check, jsonl, useTempFiles } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const file = useTempFiles("agui-cli-sarif-");
const THOUGHT = "sarif-SECRET-THOUGHT";
const VALUE = "gAAAAA-sarif-SECRET-VALUE==";

const schemaText = readFileSync(join(ROOT, "test/fixtures/sarif/sarif-2.1.0-rtm.5.json"), "utf8");
// Draft-04: its `id` and `$schema` are set aside; no keyword it uses changed meaning since (checked below).
const { $schema: _draft, id: _id, ...schema } = JSON.parse(schemaText) as Record<string, unknown>;
// `unicodeRegExp: false`: one of its patterns (`language`) has a lone `]`, valid only without the u flag.
// Formats (uri, date-time) are not checked: ajv-formats is not a dependency.
const validate = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false, validateFormats: false }).compile(
  schema,
);

const valid = [
  ev.runStarted("r1"),
  ev.reasoningChunk("m1", THOUGHT),
  ev.reasoningChunk(undefined, THOUGHT),
  ev.encryptedValue("message", "m1", VALUE),
  ev.encryptedValue("message", "nobody", VALUE),
  ev.runFinished("r1"),
];
const violating = [ev.runStarted("r1"), ev.reasoningMessageStart("m1"), ev.runFinished("r1")];

interface SarifLog {
  version: string;
  runs: {
    tool: { driver: { name: string; rules: { id: string; properties: { rule?: string } }[] } };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
    }[];
    invocations: { exitCode: number }[];
  }[];
}

describe("--format sarif", () => {
  it("the vendored schema is SARIF 2.1.0 and uses no draft-04 keyword whose meaning later changed", () => {
    expect(JSON.parse(schemaText).title).toMatch(/^Static Analysis Results Format \(SARIF\) Version 2\.1\.0/);
    expect(schemaText).not.toMatch(/"exclusiveM(in|ax)imum"|"dependencies"|"\$ref"\s*:\s*"#[^/"]/);
  });

  it.each([
    ["a violation", violating, 1],
    ["a valid stream with warnings", valid, 0],
    ["no run", [], 1],
  ] as const)("R-PROC-19: %s is a valid SARIF 2.1.0 log with the right exit code", async (label, events, exit) => {
    const path = file(`${label.replace(/\W+/g, "-")}.jsonl`, jsonl(events));
    const r = await check(["check", path, "--format", "sarif"]);
    expect(r.code).toBe(exit);
    const log = JSON.parse(r.stdout) as SarifLog;
    expect(validate(log) ? [] : validate.errors).toEqual([]);
    expect(log.version).toBe("2.1.0");
    expect(log.runs[0]!.invocations[0]!.exitCode).toBe(exit);
    expect(r.stdout).not.toContain(THOUGHT);
    expect(r.stdout).not.toContain(VALUE);
  });

  it("R-REASON-13: the violation is an error result on the file and line; rules carry the code and its rule id", async () => {
    const path = file("violation.jsonl", jsonl(violating));
    const log = JSON.parse((await check(["check", path, "--format", "sarif"])).stdout) as SarifLog;
    const [run] = log.runs;
    const [result] = run!.results;
    expect(result).toMatchObject({ ruleId: "OPEN_AT_RUN_FINISHED", level: "error" });
    expect(result!.locations![0]!.physicalLocation).toEqual({
      artifactLocation: { uri: path },
      region: { startLine: 3 },
    });
    expect(run!.tool.driver.rules[result!.ruleIndex]).toMatchObject({
      id: "OPEN_AT_RUN_FINISHED",
      properties: { rule: "R-REASON-13" },
    });
  });

  it("D-UNKNOWN-ENTITY: warnings are warning results on their lines; from stdin there is no location", async () => {
    const log = JSON.parse(
      (await check(["check", file("valid.jsonl", jsonl(valid)), "--format", "sarif"])).stdout,
    ) as SarifLog;
    const warning = log.runs[0]!.results.find((r) => r.ruleId === "UNKNOWN_ENTITY")!;
    expect(warning.level).toBe("warning");
    expect(warning.locations![0]!.physicalLocation.region).toEqual({ startLine: 5 });
    const stdin = JSON.parse((await check(["check", "-", "--format", "sarif"], jsonl(valid))).stdout) as SarifLog;
    expect(validate(stdin) ? [] : validate.errors).toEqual([]);
    expect(stdin.runs[0]!.results.every((r) => r.locations === undefined)).toBe(true);
  });

  it("the schema rejects a log that breaks it (the validation can fail)", async () => {
    const log = JSON.parse(
      (await check(["check", file("v2.jsonl", jsonl(violating)), "--format", "sarif"])).stdout,
    ) as SarifLog;
    expect(validate({ ...log, version: "2.0.0" })).toBe(false);
    expect(validate({ ...log, runs: [{ ...log.runs[0], results: [{ level: "fatal", message: {} }] }] })).toBe(false);
  });

  it("R-PROC-4: --history does not go with --format sarif", async () => {
    const r = await check(["check", "x.jsonl", "--format", "sarif", "--history"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--history goes with the human report, not --format sarif");
  });
});
