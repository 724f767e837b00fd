/**
 * The layers of docs/architecture.md (issue 20): `src/core/` (the step contract, the chain runner,
 * fusion) names no stage; a stage folder holds steps and imports neither the composition root
 * (`src/pipeline/`, which builds the operators and the facade) nor another layer above it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(__dirname, "../../src");
const STAGES = ["upcast", "schema", "chunks", "discipline", "history"];
const ABOVE_STAGES = ["pipeline", "integration", "cli", "testing"];

function filesOf(folder: string): string[] {
  return readdirSync(join(SRC, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesOf(join(folder, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(folder, entry.name)]
        : [],
  );
}

/** The `src/` folders a file imports from (relative imports only). */
function importedFolders(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const folders = new Set<string>();
  for (const match of text.matchAll(/^(?:import|export)[^"']*from\s+["'](\.[^"']+)["']/gm)) {
    const target = relative(SRC, resolve(join(SRC, file, ".."), match[1]!));
    folders.add(target.split("/")[0]!);
  }
  return [...folders];
}

describe("layering", () => {
  it("src/core/ imports no stage and nothing above the stages", () => {
    const offending = filesOf("core").flatMap((file) =>
      importedFolders(file)
        .filter((folder) => STAGES.includes(folder) || ABOVE_STAGES.includes(folder))
        .map((folder) => `${file} → ${folder}/`),
    );
    expect(offending).toEqual([]);
  });

  it("no stage imports the composition root (src/pipeline/) or a layer above it", () => {
    const offending = STAGES.flatMap((stage) =>
      filesOf(stage).flatMap((file) =>
        importedFolders(file)
          .filter((folder) => ABOVE_STAGES.includes(folder))
          .map((folder) => `${file} → ${folder}/`),
      ),
    );
    expect(offending).toEqual([]);
  });

  it("the check sees imports (it would go red on one)", () => {
    expect(importedFolders("pipeline/operators.ts")).toEqual(expect.arrayContaining(["core", "history", "upcast"]));
  });
});
