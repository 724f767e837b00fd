import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MATRIX_PATH, REPO_ROOT } from "./generate";
import { buildMatrix, parseTestRefs, renderMatrix } from "./matrix";
import { OUT_OF_SCOPE, RESTATED } from "./scope";
import { decisionIds, digestEdgeCases, digestRules, parseSpecDocuments, readSpec } from "./spec-ids";
import { idsOf, scanTests } from "./test-names";

const REGENERATE = "run `npx tsx test/traceability/generate.ts` and review the diff";

describe("spec traceability: docs/spec-traceability.md cannot rot", () => {
  const matrix = buildMatrix(REPO_ROOT);

  it("every R- id of the digest and every D- id of decisions.md is pinned by a test, or listed with a reason", () => {
    expect(matrix.problems.missing).toEqual([]);
  });

  it("every id a test name starts with exists in the index of rule ids", () => {
    expect(matrix.problems.unknownInTests).toEqual([]);
  });

  it("scope.ts lists only existing ids, none of them also pinned, and restatements point at pinned ids", () => {
    expect(matrix.problems.scope).toEqual([]);
    for (const [id, reason] of Object.entries(OUT_OF_SCOPE))
      expect({ id, reason: reason.length > 20 }).toEqual({ id, reason: true });
    for (const [id, { by, why }] of Object.entries(RESTATED))
      expect({ id, ok: by.length > 0 && why.length > 10 }).toEqual({ id, ok: true });
  });

  it("the matrix names only tests that exist", () => {
    const existing = new Set(scanTests(REPO_ROOT).map((t) => `${t.file} › ${t.name}`));
    const named = parseTestRefs(readFileSync(MATRIX_PATH, "utf8")).map((r) => `${r.file} › ${r.name}`);
    expect(named.length).toBeGreaterThan(0);
    expect({ stale: named.filter((n) => !existing.has(n)), hint: REGENERATE }).toEqual({ stale: [], hint: REGENERATE });
  });

  it("the matrix is what the generator produces from the current tests", () => {
    const committed = readFileSync(MATRIX_PATH, "utf8");
    const generated = renderMatrix(matrix);
    if (committed !== generated) {
      const a = committed.split("\n");
      const b = generated.split("\n");
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(`docs/spec-traceability.md is out of date (first difference at line ${line + 1}): ${REGENERATE}`);
    }
  });
});

describe("spec traceability: the index of rule ids (test/traceability/spec-ids.json)", () => {
  const spec = readSpec(REPO_ROOT);

  it("finds the digest's rule ids, its edge cases #1…#108 and the decisions, each once", () => {
    const ids = [...spec.rules, ...spec.decisions, ...spec.edgeCases].map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(spec.rules.map((s) => s.id)).toEqual(
      expect.arrayContaining(["R-REASON-1", "R-REASON-27", "R-STREAM-18", "R-DEP-6", "R-CAP-3"]),
    );
    expect(spec.edgeCases.map((s) => s.id)).toEqual(Array.from({ length: 108 }, (_, i) => `#${i + 1}`));
    expect(spec.decisions.map((s) => s.id)).toEqual(
      expect.arrayContaining(["D-ISSUER", "D-SEED-001", "D-SCOPE-FAMILIES"]),
    );
  });

  it("has a one-line summary and a section for every id, and the decisions being implemented elsewhere", () => {
    for (const s of [...spec.rules, ...spec.decisions, ...spec.edgeCases]) {
      expect({ id: s.id, ok: s.summary.length > 10 && !s.summary.includes("\n") && s.section.length > 0 }).toEqual({
        id: s.id,
        ok: true,
      });
    }
    expect(spec.decisions.map((s) => s.id)).toEqual(
      expect.arrayContaining([
        "D-LIMIT",
        "D-TOOL-RESULT-ID",
        "D-SNAPSHOT-ROLE",
        "D-ACTIVITY-REPLACE",
        "D-RUN-ID",
        "D-NO-ALIAS",
      ]),
    );
  });

  it("import-spec-ids reads ids from table rows only, with their section and summary", () => {
    const md = [
      "## 3. Text messages — https://x",
      "",
      "See R-TEXT-9 in prose.",
      "| ID | Rule |",
      "| --- | --- |",
      "| R-TEXT-9 | CONTENT for a \\| non-open id | fatal |",
      "### A. Things (operator b)",
      "| 7 | `RMC(m1)` | FAIL |",
    ].join("\n");
    expect(digestRules(md)).toEqual([
      { id: "R-TEXT-9", section: "§3 Text messages", summary: "CONTENT for a \\| non-open id" },
    ]);
    expect(digestEdgeCases(md)).toEqual([{ id: "#7", section: "A. Things", summary: "`RMC(m1)` → FAIL" }]);
    expect(decisionIds("| id | x |\n| D-SEED-001 | seed | y |")).toEqual([
      { id: "D-SEED-001", section: "Decisions", summary: "seed" },
    ]);
    expect(parseSpecDocuments(md, "| D-X | s | d |").decisions.map((d) => d.id)).toEqual(["D-X"]);
  });
});

describe("spec traceability: reading test names", () => {
  it("reads the ids a name starts with, expanding slashes and skipping qualifiers", () => {
    expect(idsOf("R-REASON-14: a fragment naming a span id fails")).toEqual(["R-REASON-14"]);
    expect(idsOf("#36 R-STREAM-7/12/15c: RCH(m1)")).toEqual(["#36", "R-STREAM-7", "R-STREAM-12", "R-STREAM-15"]);
    expect(idsOf("D-TRUNC (history side) #19, D-SEED-001 text")).toEqual(["D-TRUNC", "#19", "D-SEED-001"]);
    expect(idsOf("R-STREAM-11 ($name): first chunk")).toEqual(["R-STREAM-11"]);
    expect(idsOf("#51/52 R-REASON-21")).toEqual(["#51", "#52", "R-REASON-21"]);
  });

  it("ignores ids that are not at the start of the name", () => {
    expect(idsOf("events$ in one diagram: an unknown event is dropped (R-PROC-1)")).toEqual([]);
    expect(idsOf("a test about R-REASON-9")).toEqual([]);
  });

  it("scans it/test/each/describe names, describe prefixes included, and skips skipped and todo tests", () => {
    const root = mkdtempSync(join(tmpdir(), "agui-trace-"));
    try {
      mkdirSync(join(root, "test"));
      writeFileSync(
        join(root, "test", "a.test.ts"),
        [
          'describe("R-RUN-1: lifecycle", () => {',
          '  it("first event", () => {});',
          '  it.each([1])("R-RUN-9 (%s): nested", () => {});',
          "  it(`R-RUN-8: ${'after'} close`, () => {});",
          '  it.skip("R-RUN-7: skipped", () => {});',
          '  it.todo("R-RUN-6: todo");',
          '  xit("R-RUN-5: x", () => {});',
          "});",
          'test("D-WARN: top", () => {});',
          "for (const n of names) it(n, () => {});",
        ].join("\n"),
      );
      expect(scanTests(root)).toEqual([
        { file: "test/a.test.ts", name: "R-RUN-1: lifecycle › first event", ids: ["R-RUN-1"] },
        { file: "test/a.test.ts", name: "R-RUN-1: lifecycle › R-RUN-9 (%s): nested", ids: ["R-RUN-1", "R-RUN-9"] },
        { file: "test/a.test.ts", name: "R-RUN-1: lifecycle › R-RUN-8: ${…} close", ids: ["R-RUN-1", "R-RUN-8"] },
        { file: "test/a.test.ts", name: "D-WARN: top", ids: ["D-WARN"] },
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("renders and parses test references with marble diagrams in their names", () => {
    const m = buildMatrix(REPO_ROOT);
    const pinned = m.rules.find((r) => r.status === "pinned")!;
    const odd = { ...pinned, tests: [{ file: "marbles/x.test.ts", name: "R-X-1: `a` | (<c) * _ [b] \\ |", ids: [] }] };
    const md = renderMatrix({ ...m, rules: [odd], decisions: [], edgeCases: [] });
    expect(parseTestRefs(md)).toEqual([{ file: "marbles/x.test.ts", name: "R-X-1: `a` | (<c) * _ [b] \\ |" }]);
  });
});
