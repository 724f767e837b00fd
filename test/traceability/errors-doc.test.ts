import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ERROR_CODES, WARNING_CODES } from "../../src";
import type { Lossiness } from "../../src/core/warning-codes";

/**
 * docs/errors.md is the error-code reference: every code users can match on must be there. Error
 * codes come from `ERROR_CODES`; warning codes from `WARNING_CODES`, whose rules and lossiness the
 * warning table must state exactly (test/api/warning-codes.test.ts checks every emitted warning
 * against the same catalogue).
 */

const REPO = resolve(__dirname, "../..");
const DOC = readFileSync(join(REPO, "docs/errors.md"), "utf8");

/** The cells of the table rows whose first cell is a code (cells may be padded, as a formatter aligns them). */
const rows = [...DOC.matchAll(/^\| *`([A-Z][A-Z0-9_]+)` *\|(.*)\|$/gm)].map((m) => ({
  code: m[1]!,
  cells: m[2]!.split("|").map((c) => c.trim()),
}));
const documented = new Set(rows.map((r) => r.code));

/** A warning row's rule ids (outside parentheses, which explain) and its lossy cell, as the catalogue states them. */
function documentedRules(): Record<string, Record<string, Lossiness>> {
  const byCode: Record<string, Record<string, Lossiness>> = {};
  for (const { code, cells } of rows.filter((r) => r.code in WARNING_CODES)) {
    const [, ruleCell = "", lossyCell = ""] = cells;
    const lossy: Lossiness | "?" =
      lossyCell === "**yes**"
        ? true
        : lossyCell === "no"
          ? false
          : lossyCell.startsWith("when ")
            ? "when-content"
            : "?";
    for (const [rule] of ruleCell.replace(/\([^)]*\)/g, "").matchAll(/\b[RD]-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*\b/g)) {
      (byCode[code] ??= {})[rule] = lossy as Lossiness;
    }
  }
  return byCode;
}

describe("docs/errors.md: the error-code reference", () => {
  it("documents every ReasoningProtocolError code with its rule", () => {
    expect(Object.keys(ERROR_CODES).filter((code) => !documented.has(code))).toEqual([]);
  });

  it("D-WARN: the warning table states each code of WARNING_CODES with exactly its rules and lossiness", () => {
    const catalogue = Object.fromEntries(Object.entries(WARNING_CODES).map(([code, { rules }]) => [code, rules]));
    expect(documentedRules()).toEqual(catalogue);
  });

  it("documents no code that does not exist", () => {
    const known = new Set<string>([...Object.keys(ERROR_CODES), ...Object.keys(WARNING_CODES)]);
    expect([...documented].filter((code) => !known.has(code))).toEqual([]);
  });
});
