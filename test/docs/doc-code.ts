import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/**
 * The TypeScript code of the documentation: every ```ts block of README.md and docs/*.md. The info
 * string says what a block is:
 *   ```ts            a module: compiled under --strict against the package
 *   ```ts runnable   also run (with tsx), as a user would run it
 *   ```ts fragment   an excerpt that does not stand alone (undeclared names, `…`): skipped
 */
export interface DocBlock {
  /** `README.md:19` — the file and the line of the opening fence. */
  readonly where: string;
  readonly kind: "module" | "runnable" | "fragment";
  readonly code: string;
}

export const DOC_FILES = (root: string): string[] => [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

export function docBlocks(markdown: string, file: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)\b\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    const marker = open[2]!.trim();
    if (marker !== "" && marker !== "runnable" && marker !== "fragment")
      throw new Error(`${file}:${start + 1}: unknown marker "${marker}" (runnable or fragment)`);
    blocks.push({ where: `${file}:${start + 1}`, kind: marker === "" ? "module" : marker, code: body.join("\n") });
  }
  return blocks;
}

/** The options the docs are compiled with: the repository's, --strict, and the package name mapped to src/. */
export function compilerOptions(root: string): ts.CompilerOptions {
  const config = ts.readConfigFile(join(root, "tsconfig.json"), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return {
    ...options,
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    baseUrl: root,
    paths: {
      "agui-reasoning": ["src/index.ts"],
      "agui-reasoning/stages": ["src/stages.ts"],
      "agui-reasoning/resilience": ["src/resilience.ts"],
      "agui-reasoning/testing": ["src/testing/index.ts"],
      "agui-reasoning/storage": ["src/storage/index.ts"],
    },
  };
}

/** Writes each block as a module file under `dir`, compiles them all in one program, and returns the errors per block. */
export function compileBlocks(root: string, dir: string, blocks: readonly DocBlock[]): Map<DocBlock, string[]> {
  mkdirSync(dir, { recursive: true });
  const fileOf = new Map<string, DocBlock>();
  for (const block of blocks) {
    const file = join(dir, `${block.where.replace(/[^\w]+/g, "_")}.mts`);
    // A block is a module of its own (its names do not clash with another block's).
    writeFileSync(file, `${block.code}\nexport {};\n`);
    fileOf.set(file, block);
  }
  const program = ts.createProgram([...fileOf.keys()], compilerOptions(root));
  const errors = new Map<DocBlock, string[]>(blocks.map((b) => [b, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const block = d.file ? fileOf.get(d.file.fileName) : undefined;
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (block === undefined) {
      // An error outside the blocks (in src/, or global) is every block's problem.
      for (const list of errors.values())
        list.push(`${d.file ? relative(root, d.file.fileName) : "(global)"}: TS${d.code} ${text}`);
      continue;
    }
    const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line;
    errors.get(block)!.push(`line ${line + 1} of the block: TS${d.code} ${text}`);
  }
  return errors;
}

export function readDocBlocks(root: string): DocBlock[] {
  return DOC_FILES(root).flatMap((f) => docBlocks(readFileSync(join(root, f), "utf8"), f));
}
