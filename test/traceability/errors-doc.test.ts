import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { ERROR_CODES } from "../../src";

/**
 * docs/errors.md is the error-code reference: every code users can match on must be there. Error
 * codes come from `ERROR_CODES`; warning codes are read from the sources (the first argument of a
 * `warning(…)` helper, a `code: "…"` field, or a `CODE: "CODE"` table entry).
 */

const REPO = resolve(__dirname, "../..");
const DOC = readFileSync(join(REPO, "docs/errors.md"), "utf8");

/** Codes documented in a table row: the first cell, in backticks. */
// A table row whose first cell is a code (cells may be padded, as a formatter aligns them).
const documented = new Set([...DOC.matchAll(/^\| *`([A-Z][A-Z0-9_]+)` *\|/gm)].map((m) => m[1]!));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Warning codes the sources emit (the kit in src/testing emits none). */
function emittedWarningCodes(): string[] {
  const codes = new Set<string>();
  for (const file of sourceFiles(join(REPO, "src"))) {
    if (file.includes(join("src", "testing"))) continue;
    const text = readFileSync(file, "utf8");
    for (const re of [
      /warning\(\s*"([A-Z][A-Z0-9_]+)"/g,
      /code:\s*"([A-Z][A-Z0-9_]+)"/g,
      /\b([A-Z][A-Z0-9_]+): "\1"/g,
    ]) {
      for (const m of text.matchAll(re)) codes.add(m[1]!);
    }
  }
  const errors = new Set<string>(ERROR_CODES);
  return [...codes].filter((c) => !errors.has(c)).sort();
}

describe("docs/errors.md: the error-code reference", () => {
  it("documents every ReasoningProtocolError code with its rule", () => {
    expect(ERROR_CODES.filter((code) => !documented.has(code))).toEqual([]);
  });

  it("documents every warning code the sources emit", () => {
    const emitted = emittedWarningCodes();
    expect(emitted.length).toBeGreaterThan(10);
    expect(emitted.filter((code) => !documented.has(code))).toEqual([]);
  });

  it("documents no code that does not exist", () => {
    const known = new Set<string>([...ERROR_CODES, ...emittedWarningCodes()]);
    expect([...documented].filter((code) => !known.has(code))).toEqual([]);
  });
});
