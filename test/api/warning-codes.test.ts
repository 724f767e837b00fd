/**
 * D-WARN: the warning catalogue (`WARNING_CODES`) is the truth about every warning the package emits.
 * Each warning any stage, the run input or the storage emits names a catalogued code and one of that
 * code's rules, and is lossy exactly as the catalogue says for that rule; every catalogued code is
 * emitted by some stream (no dead entry). Warnings are built only by `catalogued`, which derives
 * `lossy` from the catalogue: no other source file sets `lossy`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { from } from "rxjs";
import { catalogued, WARNING_CODES, type Lossiness } from "../../src/core/warning-codes";
import type { ReasoningWarning } from "../../src/core/types";
import { downcastToThinking } from "../../src/downcast/downcast-thinking";
import { toRunInputMessages } from "../../src/history/run-input";
import { reasoningPipeline, type ReasoningPipelineOptions } from "../../src/pipeline/reasoning-pipeline";
import { repairStream } from "../../src/repair/repair-stream";
import { saveHistory } from "../../src/storage/history-store";
import { InMemoryHistoryStore } from "../../src/storage/in-memory-store";
import { optInStreams, warningStreams } from "../redaction/code-streams";
import { generatedCase } from "../redaction/generated";
import { CHECK_WARNING_CODES } from "../support/check-warning-codes";

const REPO = resolve(__dirname, "../..");

/** What is wrong with `w` by the catalogue, or undefined. */
function problemWith(w: ReasoningWarning): string | undefined {
  const entry = (WARNING_CODES as Record<string, { rules: Record<string, Lossiness> } | undefined>)[w.code];
  if (entry === undefined) return `${w.code}: not in WARNING_CODES`;
  if (w.rule === undefined || !(w.rule in entry.rules)) return `${w.code}: rule ${String(w.rule)} not catalogued`;
  const lossiness = entry.rules[w.rule]!;
  if (lossiness === "when-content") return w.lossy === undefined || w.lossy ? undefined : `${w.code}: lossy: false`;
  if (lossiness && w.lossy !== true) return `${w.code} (${w.rule}): catalogued lossy, emitted not lossy`;
  if (!lossiness && w.lossy !== undefined) return `${w.code} (${w.rule}): catalogued not lossy, emitted lossy`;
  return undefined;
}

/** Runs `events` as users place the stages (repair before the facade, downcast after it, then run input and a value-less store). */
async function warningsOf(
  events: readonly unknown[],
  options: ReasoningPipelineOptions = {},
  stages: { repair?: boolean; downcast?: boolean; store?: boolean } = {},
): Promise<ReasoningWarning[]> {
  const warnings: ReasoningWarning[] = [];
  const onWarning = (w: ReasoningWarning): void => void warnings.push(w);
  const source = stages.repair ? from(events).pipe(repairStream({ onWarning })) : from(events);
  const pipeline = reasoningPipeline(source, { producer: "p", ...options, onWarning });
  const output = stages.downcast ? pipeline.events$.pipe(downcastToThinking({ onWarning })) : pipeline.events$;
  output.subscribe({ error: () => {} });
  toRunInputMessages(pipeline.history, { producer: "someone-else", onWarning });
  if (stages.store)
    await saveHistory(new InMemoryHistoryStore({ encryptedValues: false }), "t1", pipeline.history, { onWarning });
  return warnings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

describe("WARNING_CODES: every emitted warning agrees with the catalogue", () => {
  const emitted = new Set<string>();

  it("D-WARN: the code streams (one per warning code, the opt-in stages' included) emit only catalogued warnings", async () => {
    const problems: string[] = [];
    for (const { events, options } of warningStreams()) {
      for (const w of await warningsOf(events, options)) {
        emitted.add(w.code);
        const problem = problemWith(w);
        if (problem) problems.push(problem);
      }
    }
    for (const { stage, events } of optInStreams()) {
      const stages = { repair: stage === "repairStream", downcast: stage === "downcastToThinking", store: true };
      for (const w of await warningsOf(events, {}, stages)) {
        emitted.add(w.code);
        const problem = problemWith(w);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  it("D-WARN: generated and mutated streams, repaired and downcast, emit only catalogued warnings", async () => {
    const cases = fc.sample(generatedCase, { numRuns: 300, seed: 20 });
    const problems = new Set<string>();
    for (const [i, c] of cases.entries()) {
      const options = c.initialMessages ? { initialMessages: c.initialMessages } : {};
      for (const w of await warningsOf(c.events, options, { repair: i % 2 === 0, downcast: i % 3 === 0 })) {
        emitted.add(w.code);
        const problem = problemWith(w);
        if (problem) problems.add(problem);
      }
    }
    expect([...problems]).toEqual([]);
  });

  it("D-WARN: every catalogued code is emitted by some stream (the catalogue has no dead entry)", () => {
    expect(Object.keys(WARNING_CODES).filter((code) => !emitted.has(code) && !CHECK_WARNING_CODES.has(code))).toEqual(
      [],
    );
  });

  it("D-WARN: the check itself fails a warning whose code, rule or lossiness disagrees with the catalogue", () => {
    const base = { message: "m" };
    expect(problemWith({ ...base, code: "NOT_A_CODE" as never, rule: "R-PROC-1" })).toMatch(/not in WARNING_CODES/);
    expect(problemWith({ ...base, code: "UNKNOWN_EVENT_TYPE", rule: "R-PROC-2" })).toMatch(/rule R-PROC-2/);
    expect(problemWith({ ...base, code: "UNKNOWN_EVENT_TYPE", rule: "R-PROC-1", lossy: true })).toMatch(/not lossy/);
    expect(problemWith({ ...base, code: "UNKNOWN_ENTITY", rule: "D-UNKNOWN-ENTITY" })).toMatch(/catalogued lossy/);
    expect(problemWith({ ...base, code: "UNKNOWN_ENTITY", rule: "D-UNKNOWN-ENTITY", lossy: true })).toBeUndefined();
  });
});

describe("catalogued: the one constructor of warnings", () => {
  it("D-WARN R-VER-7: takes lossy from the catalogue's entry for the code and rule", () => {
    expect(catalogued("DUPLICATE_MESSAGE_ID", "R-EVT-8", { message: "m" })).toEqual({
      code: "DUPLICATE_MESSAGE_ID",
      rule: "R-EVT-8",
      message: "m",
      lossy: true,
    });
    const notLossy = catalogued("DUPLICATE_MESSAGE_ID", "D-TOOL-RESULT-ID", { message: "m" }, true);
    expect(notLossy).toEqual({ code: "DUPLICATE_MESSAGE_ID", rule: "D-TOOL-RESULT-ID", message: "m" });
    expect("lossy" in notLossy).toBe(false);
  });

  it("D-WARN R-VER-7: a when-content entry is lossy exactly when the dropped event carried content", () => {
    expect(catalogued("REPAIRED_ORPHAN_DROPPED", "R-REASON-9", { message: "m" }, true).lossy).toBe(true);
    expect(catalogued("REPAIRED_ORPHAN_DROPPED", "R-REASON-9", { message: "m" }, false).lossy).toBeUndefined();
    expect(catalogued("REPAIRED_ORPHAN_DROPPED", "R-REASON-9", { message: "m" }).lossy).toBeUndefined();
  });

  it("D-WARN: no source file but the catalogue sets `lossy` (every warning's lossiness comes from WARNING_CODES)", () => {
    const catalogue = join(REPO, "src/core/warning-codes.ts");
    const setters = sourceFiles(join(REPO, "src"))
      .filter((file) => file !== catalogue)
      .filter((file) =>
        /\blossy\s*(:|=[^=])/.test(readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")),
      )
      .map((file) => file.slice(REPO.length + 1));
    expect(setters).toEqual([]);
  });

  it("D-WARN: every entry is well formed: at least one rule, each an R-/D- id with a boolean or when-content lossiness", () => {
    const bad = Object.entries(WARNING_CODES as Record<string, { rules: Record<string, unknown> }>).filter(
      ([, entry]) =>
        Object.keys(entry.rules).length === 0 ||
        Object.entries(entry.rules).some(
          ([rule, lossy]) =>
            !/^[RD]-[A-Z0-9-]+$/.test(rule) || !(typeof lossy === "boolean" || lossy === "when-content"),
        ),
    );
    expect(bad).toEqual([]);
  });
});
