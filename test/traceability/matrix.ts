import { OUT_OF_SCOPE, PENDING_IMPLEMENTATION, RESTATED } from "./scope";
import { readSpec, type SpecId } from "./spec-ids";
import { scanTests, type TestCase } from "./test-names";

/** How a spec id is accounted for. */
export type Status = "pinned" | "restated" | "out of scope" | "pending" | "missing";

export interface MatrixRow extends SpecId {
  readonly status: Status;
  /** Tests whose name starts with the id. */
  readonly tests: readonly TestCase[];
  /** Out of scope: the reason. Restated: why, and the ids that pin it. */
  readonly note?: string;
}

export interface Problems {
  /** Ids with neither a test nor an entry in scope.ts. */
  readonly missing: readonly string[];
  /** Ids a test name starts with that exist nowhere (typos). */
  readonly unknownInTests: readonly string[];
  /** scope.ts entries that are wrong (unknown, also pinned, restated by unpinned ids). */
  readonly scope: readonly string[];
}

/** Every problem, one line each. */
export function allProblems(p: Problems): string[] {
  return [...p.missing, ...p.unknownInTests, ...p.scope];
}

export interface Matrix {
  /** Digest R- ids, then decisions.md D- ids (both must be accounted for). */
  readonly rules: readonly MatrixRow[];
  readonly decisions: readonly MatrixRow[];
  /** Digest edge cases `#1…#108`: listed for information, never required. */
  readonly edgeCases: readonly MatrixRow[];
  /** Everything that makes the matrix wrong, by kind; the matrix test fails on any. */
  readonly problems: Problems;
  readonly testCount: number;
}

/** Scans the tests and the spec documents and accounts for every id. */
export function buildMatrix(repoRoot: string): Matrix {
  const spec = readSpec(repoRoot);
  const tests = scanTests(repoRoot);
  const byId = new Map<string, TestCase[]>();
  for (const t of tests) for (const id of t.ids) byId.set(id, [...(byId.get(id) ?? []), t]);
  const problems = { missing: [] as string[], unknownInTests: [] as string[], scope: [] as string[] };

  const row = (s: SpecId, required: boolean): MatrixRow => {
    const pinned = byId.get(s.id) ?? [];
    const reason = OUT_OF_SCOPE[s.id];
    const restated = RESTATED[s.id];
    if (pinned.length > 0) {
      if (PENDING_IMPLEMENTATION.includes(s.id)) {
        problems.scope.push(
          `${s.id} is pinned by ${pinned.length} test(s) but still listed in PENDING_IMPLEMENTATION (test/traceability/scope.ts): remove it there`,
        );
      }
      if (reason !== undefined || restated !== undefined) {
        problems.scope.push(
          `${s.id} is pinned by ${pinned.length} test(s) but also listed in test/traceability/scope.ts: remove it there`,
        );
      }
      return { ...s, status: "pinned", tests: pinned };
    }
    if (reason !== undefined) return { ...s, status: "out of scope", tests: [], note: reason };
    if (restated !== undefined)
      return { ...s, status: "restated", tests: [], note: `${restated.why} Pinned by ${restated.by.join(", ")}.` };
    if (PENDING_IMPLEMENTATION.includes(s.id))
      return { ...s, status: "pending", tests: [], note: "being implemented on another branch" };
    if (required)
      problems.missing.push(
        `${s.id} (${s.section}) has no test whose name starts with it, and is not listed as out of scope`,
      );
    return { ...s, status: "missing", tests: [] };
  };

  const rules = spec.rules.map((s) => row(s, true));
  const decisions = spec.decisions.map((s) => row(s, true));
  const edgeCases = spec.edgeCases.map((s) => row(s, false));

  const known = new Set([...spec.rules, ...spec.decisions, ...spec.edgeCases].map((s) => s.id));
  for (const id of [...Object.keys(OUT_OF_SCOPE), ...Object.keys(RESTATED), ...PENDING_IMPLEMENTATION]) {
    if (!known.has(id))
      problems.scope.push(
        `test/traceability/scope.ts lists ${id}, which is not in the index of rule ids (test/traceability/spec-ids.json)`,
      );
  }
  for (const [id, { by }] of Object.entries(RESTATED)) {
    for (const other of by)
      if (!byId.has(other)) problems.scope.push(`${id} is restated by ${other}, which no test pins`);
  }
  for (const t of tests) {
    for (const id of t.ids)
      if (!known.has(id))
        problems.unknownInTests.push(
          `test "${t.name}" (${t.file}) names ${id}, which is not in the index of rule ids (test/traceability/spec-ids.json)`,
        );
  }
  return { rules, decisions, edgeCases, problems, testCount: tests.length };
}

/** The matrix as docs/spec-traceability.md. */
export function renderMatrix(m: Matrix): string {
  const count = (rows: readonly MatrixRow[], status: Status) => rows.filter((r) => r.status === status).length;
  const lines = [
    "# Spec traceability",
    "",
    "Every rule of the AG-UI 1.0 digest (`R-…`) and every product decision (`D-…`), as listed in the project's",
    "index of rule ids `test/traceability/spec-ids.json`, → the tests that pin it. A test pins an id when its name (or an",
    'enclosing `describe`\'s) **starts with** the id, e.g. `it("R-REASON-14: a fragment naming a span id fails the run", …)`;',
    "`R-STREAM-7/12/15c` names R-STREAM-7, R-STREAM-12 and R-STREAM-15.",
    "",
    "**Generated** by `npx tsx test/traceability/generate.ts` from the test names in `marbles/` and `test/`;",
    "do not edit by hand. Rules this package does not implement, and rules that only restate others, are",
    "listed with their reason in `test/traceability/scope.ts`. `test/traceability/matrix.test.ts` fails when",
    "an id has no test and no reason, when a test names an id that does not exist, when this file names a",
    "test that does not exist, or when this file is not what the generator produces.",
    "",
    "## Summary",
    "",
    "| | ids | pinned by tests | restated (pinned by other ids) | out of scope | pending | missing |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    `| digest rules (R-) | ${m.rules.length} | ${count(m.rules, "pinned")} | ${count(m.rules, "restated")} | ${count(m.rules, "out of scope")} | ${count(m.rules, "pending")} | ${count(m.rules, "missing")} |`,
    `| decisions (D-) | ${m.decisions.length} | ${count(m.decisions, "pinned")} | ${count(m.decisions, "restated")} | ${count(m.decisions, "out of scope")} | ${count(m.decisions, "pending")} | ${count(m.decisions, "missing")} |`,
    `| edge cases (#, informative) | ${m.edgeCases.length} | ${count(m.edgeCases, "pinned")} | – | – | – | ${count(m.edgeCases, "missing")} |`,
    "",
    `${m.testCount} tests scanned.`,
    "",
  ];
  lines.push(...section("Decisions", m.decisions));
  for (const [title, rows] of groups(m.rules)) lines.push(...section(`Digest ${title}`, rows));
  lines.push(
    "## Edge cases (informative)",
    "",
    "The digest's edge-case table; not every case needs its own test (many are pinned under their rule id).",
    "",
  );
  for (const [title, rows] of groups(m.edgeCases)) lines.push(...section(title, rows, "###"));
  return `${lines.join("\n").trimEnd()}\n`;
}

function groups(rows: readonly MatrixRow[]): Array<[string, MatrixRow[]]> {
  const out = new Map<string, MatrixRow[]>();
  for (const r of rows) out.set(r.section, [...(out.get(r.section) ?? []), r]);
  return [...out.entries()];
}

function section(title: string, rows: readonly MatrixRow[], level = "##"): string[] {
  const lines = [`${level} ${title}`, "", "| id | rule | tests |", "| --- | --- | --- |"];
  // Summaries are cells of the spec's own tables: already markdown.
  for (const r of rows) lines.push(`| ${r.id} | ${r.summary} | ${cell(r)} |`);
  lines.push("");
  return lines;
}

function cell(r: MatrixRow): string {
  switch (r.status) {
    case "pinned":
      return r.tests.map(testRef).join("<br>");
    case "missing":
      return "**no test**";
    default:
      return `*${r.status}:* ${escape(r.note ?? "")}`;
  }
}

/** `` `file` › name `` — parsed back by {@link parseTestRefs}. */
export function testRef(t: TestCase): string {
  return `\`${t.file}\` › ${escape(t.name)}`;
}

/** Every test a rendered matrix names, as `file › name` pairs. */
export function parseTestRefs(markdown: string): Array<{ file: string; name: string }> {
  const refs: Array<{ file: string; name: string }> = [];
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("| ")) continue;
    const last =
      line
        .slice(0, -2)
        .split(/(?<!\\)\| /)
        .pop() ?? "";
    for (const entry of last.split("<br>")) {
      const match = /^`([^`]+)` › (.*)$/.exec(entry.trim());
      if (match) refs.push({ file: match[1]!, name: unescape(match[2]!) });
    }
  }
  return refs;
}

// Markdown punctuation in names and summaries is backslash-escaped (names hold marble diagrams).
function escape(text: string): string {
  return text.replace(/[\\`*_|<>[\]]/g, "\\$&");
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}
