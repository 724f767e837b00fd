import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** One test case found in the sources, with the spec ids its name (or an enclosing describe's) starts with. */
export interface TestCase {
  /** Path relative to the repository root, with `/`. */
  readonly file: string;
  /** Describe titles and the test title, joined by " › " (as jest prints them). */
  readonly name: string;
  /** R-/D- ids and `#n` edge cases the name's prefix pins, in order, without duplicates. */
  readonly ids: readonly string[];
}

/** Where test names are scanned (relative to the repository root). */
export const TEST_ROOTS = ["marbles", "test"] as const;

/** Every test in `*.test.ts` files under the test roots, in file order. */
export function scanTests(repoRoot: string): TestCase[] {
  const cases: TestCase[] = [];
  for (const root of TEST_ROOTS) {
    for (const path of testFiles(join(repoRoot, root))) {
      const file = relative(repoRoot, path).split("\\").join("/");
      const source = ts.createSourceFile(
        path,
        readFileSync(path, "utf8"),
        ts.ScriptTarget.Latest,
        false,
        ts.ScriptKind.TS,
      );
      collect(source, [], file, cases);
    }
  }
  return cases;
}

function testFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...testFiles(path));
    else if (entry.endsWith(".test.ts")) files.push(path);
  }
  return files;
}

type Kind = "describe" | "test";

/** Walks the AST; `describes` are the enclosing describe titles. */
function collect(node: ts.Node, describes: readonly string[], file: string, out: TestCase[]): void {
  if (ts.isCallExpression(node)) {
    const kind = kindOf(node.expression);
    const title = kind ? titleOf(node.arguments[0]) : undefined;
    if (kind && title !== undefined) {
      if (kind === "test") {
        const ids = unique([...describes.flatMap(idsOf), ...idsOf(title)]);
        out.push({ file, name: [...describes, title].join(" › "), ids });
        return;
      }
      for (const arg of node.arguments.slice(1)) collect(arg, [...describes, title], file, out);
      return;
    }
  }
  ts.forEachChild(node, (child) => collect(child, describes, file, out));
}

const TESTS = new Set(["it", "test", "fit"]);
const SKIPPED = new Set(["skip", "todo", "failing"]);

/**
 * `it`, `test`, `describe`, their `.only` / `.concurrent` / `.each(table)` forms. Skipped and todo
 * tests (`it.skip`, `xit`, `it.todo`) pin nothing, so they are not collected.
 */
function kindOf(callee: ts.Expression): Kind | undefined {
  if (ts.isCallExpression(callee)) {
    // it.each(table)(title, fn)
    const inner = callee.expression;
    return ts.isPropertyAccessExpression(inner) && inner.name.text === "each" ? kindOf(inner.expression) : undefined;
  }
  if (ts.isIdentifier(callee)) {
    if (TESTS.has(callee.text)) return "test";
    if (callee.text === "describe" || callee.text === "fdescribe") return "describe";
    return undefined;
  }
  if (ts.isPropertyAccessExpression(callee)) {
    if (SKIPPED.has(callee.name.text) || callee.name.text === "each") return undefined;
    return kindOf(callee.expression);
  }
  return undefined;
}

/** A literal title; a template keeps its literal parts with `${…}` for each substitution. */
function titleOf(arg: ts.Expression | undefined): string | undefined {
  if (!arg) return undefined;
  if (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg)) return arg.text;
  if (ts.isTemplateExpression(arg))
    return arg.head.text + arg.templateSpans.map((s) => "${…}" + s.literal.text).join("");
  return undefined;
}

// The tokens a name may start with: ids, `(qualifiers)`, separators. Anything else ends the prefix.
const R_ID = /^R-([A-Z]+)-(\d+)[a-z]?((?:\/\d+[a-z]?)*)/;
const D_ID = /^D-[A-Z0-9]+(?:-[A-Z0-9]+)*/;
const EDGE = /^#(\d+)((?:\/\d+)*)/;
const SKIP = /^(?:[\s,+&]+|\([^)]*\))/;

/**
 * The ids a name starts with: `R-REASON-14: …`, `#36 R-STREAM-7/12/15c: …` (= R-STREAM-7,
 * R-STREAM-12, R-STREAM-15), `D-TRUNC (history side) #19 …`. Ids later in the name do not count.
 */
export function idsOf(name: string): string[] {
  const ids: string[] = [];
  let rest = name;
  for (;;) {
    let m: RegExpExecArray | null;
    if ((m = SKIP.exec(rest))) {
      rest = rest.slice(m[0].length);
    } else if ((m = R_ID.exec(rest))) {
      const [, family, first, more] = m as unknown as [string, string, string, string];
      ids.push(`R-${family}-${first}`);
      for (const n of more.split("/").filter(Boolean)) ids.push(`R-${family}-${n.replace(/[a-z]$/, "")}`);
      rest = rest.slice(m[0].length);
    } else if ((m = D_ID.exec(rest))) {
      ids.push(m[0]);
      rest = rest.slice(m[0].length);
    } else if ((m = EDGE.exec(rest))) {
      const [, first, more] = m as unknown as [string, string, string];
      ids.push(`#${first}`);
      for (const n of more.split("/").filter(Boolean)) ids.push(`#${n}`);
      rest = rest.slice(m[0].length);
    } else {
      return unique(ids);
    }
  }
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
