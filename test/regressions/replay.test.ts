/**
 * Replays every saved counterexample (test/regressions/*.json, written by the property suite when a
 * property fails) through the pipeline and the reference model: they must agree, and no error or
 * warning may contain input text (D-REDACT). `npx tsx test/property/explain-case.ts <file>` explains one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { problemsOf, type StreamCase } from "../property/harness";

const files = readdirSync(__dirname)
  .filter((f) => f.endsWith(".json"))
  .sort();

describe("regressions: saved counterexamples replay", () => {
  it("R-PROC-19: replay reaches the saved cases (there is at least the hand-written seed)", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("R-PROC-19: %s — pipeline and model agree", (file) => {
    const c = JSON.parse(readFileSync(join(__dirname, file), "utf8")) as StreamCase;
    expect(problemsOf(c)).toEqual([]);
  });
});
