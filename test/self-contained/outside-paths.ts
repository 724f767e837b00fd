import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import ts from "typescript";

/** What the repository's own sources may not do: name a path outside the repository. */
export interface OutsideReference {
  /** Path relative to the repository root, with `/`. */
  readonly file: string;
  readonly line: number;
  /** The text that names the outside path. */
  readonly text: string;
  /** Where it leads, when known. */
  readonly target?: string;
}

/** Everything that runs at test, build or run time (data fixtures are not code and are not scanned). */
export const SCANNED = [
  "src",
  "test",
  "marbles",
  "bench",
  "examples",
  "scripts",
  ".ci",
  "jest.config.ts",
  "package.json",
  "tsconfig.json",
  "tsdown.config.ts",
];
const SKIPPED_DIRS = new Set(["node_modules", "dist", "fixtures", ".tmp"]);
const CODE = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);

/** Names that only exist outside a clone: a sibling `shared/` folder, the machine's work folders. */
const OUTSIDE_NAMES: readonly RegExp[] = [
  /(^|[^\w.])\.\.\/shared\b/,
  /(^|["'`\s=])\/work\//,
  /(^|[^\w])\/home\/[\w-]+\//,
];

/** Every reference to a path outside `repoRoot` in the scanned files. */
export function findOutsideReferences(repoRoot: string, scanned: readonly string[] = SCANNED): OutsideReference[] {
  const found: OutsideReference[] = [];
  const committable = committableFiles(repoRoot);
  for (const entry of scanned) {
    const path = join(repoRoot, entry);
    if (!existsSync(path)) continue;
    for (const file of filesUnder(path))
      if (committable === undefined || committable.has(pathIn(repoRoot, file))) found.push(...scanFile(repoRoot, file));
  }
  return found;
}

/**
 * In a git work tree, the files a commit could hold (tracked, or new and not ignored): what a clone
 * has. A file git ignores (a local profile, a scratch script under `bench/profiles/`) is never in a
 * user's clone, so it is not scanned. `undefined` outside a work tree: every file is scanned.
 */
function committableFiles(repoRoot: string): Set<string> | undefined {
  const git = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 2 ** 20,
  });
  if (git.status !== 0) return undefined;
  return new Set(git.stdout.split("\0").filter((f) => f !== ""));
}

/** `file`'s path relative to `repoRoot`, with `/` (as git lists it). */
function pathIn(repoRoot: string, file: string): string {
  return relative(repoRoot, file).split("\\").join("/");
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => !(e.isDirectory() && SKIPPED_DIRS.has(e.name)))
    .flatMap((e) => filesUnder(join(path, e.name)));
}

/** One file: outside names anywhere in its text; in code, relative specifiers and evaluable path expressions that leave the root. */
export function scanFile(repoRoot: string, file: string, text = readFileSync(file, "utf8")): OutsideReference[] {
  const rel = pathIn(repoRoot, file);
  const found: OutsideReference[] = [];
  text.split("\n").forEach((line, i) => {
    if (OUTSIDE_NAMES.some((re) => re.test(line)))
      found.push({ file: rel, line: i + 1, text: line.trim().slice(0, 160) });
  });
  if (!CODE.has(extname(file))) return found;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const outside = (target: string) => {
    const r = relative(repoRoot, target);
    return r === ".." || r.startsWith(`../`) || r.startsWith("..\\") || isAbsolute(r);
  };
  const report = (node: ts.Node, target: string) => {
    if (outside(target) && !found.some((f) => f.line === lineOf(node)))
      found.push({ file: rel, line: lineOf(node), text: node.getText(source).slice(0, 160), target });
  };
  const consts = new Map<string, string>();
  const evaluate = (node: ts.Expression): string | undefined => {
    if (ts.isStringLiteralLike(node)) return node.text;
    if (ts.isIdentifier(node)) return node.text === "__dirname" ? dirname(file) : consts.get(node.text);
    if (ts.isParenthesizedExpression(node)) return evaluate(node.expression);
    if (ts.isCallExpression(node)) {
      // resolve(…)/join(…) as imported from node:path, or path.resolve(…)/path.join(…).
      const callee =
        ts.isPropertyAccessExpression(node.expression) &&
        ts.isIdentifier(node.expression.expression) &&
        node.expression.expression.text === "path"
          ? node.expression.name.text
          : ts.isIdentifier(node.expression)
            ? node.expression.text
            : "";
      if (callee !== "resolve" && callee !== "join") return undefined;
      const args = node.arguments.map((a) => evaluate(a));
      if (args.length === 0 || args.some((a) => a === undefined) || !isAbsolute(args[0]!)) return undefined;
      return callee === "resolve" ? resolve(...(args as string[])) : join(...(args as string[]));
    }
    return undefined;
  };
  const visit = (node: ts.Node): void => {
    // import/export … from "…", import("…"), require("…"), jest.mock("…"): relative to the file.
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
        ? node.moduleSpecifier
        : ts.isCallExpression(node) &&
            node.arguments[0] &&
            ts.isStringLiteralLike(node.arguments[0]) &&
            isModuleCall(node)
          ? node.arguments[0]
          : undefined;
    if (specifier && specifier.text.startsWith(".")) report(specifier, resolve(dirname(file), specifier.text));
    if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal) &&
      node.argument.literal.text.startsWith(".")
    ) {
      report(node, resolve(dirname(file), node.argument.literal.text));
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const value = evaluate(node.initializer);
      if (value !== undefined && isAbsolute(value)) consts.set(node.name.text, value);
    }
    if (ts.isCallExpression(node)) {
      const value = evaluate(node);
      if (value !== undefined) report(node, value);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isModuleCall(node: ts.CallExpression): boolean {
  if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return true;
  if (ts.isIdentifier(node.expression)) return node.expression.text === "require";
  if (ts.isPropertyAccessExpression(node.expression)) {
    const name = node.expression.name.text;
    return (
      ["mock", "requireActual", "resolve", "doMock"].includes(name) && node.expression.expression.getText() !== "path"
    );
  }
  return false;
}
