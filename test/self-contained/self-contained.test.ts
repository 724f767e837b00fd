import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { CORPUS_ROOT } from "../conformance/fixture";
import { findOutsideReferences, scanFile } from "./outside-paths";

const ROOT = resolve(__dirname, "../..");

describe("self-contained: a clone with nothing beside it runs the tests, the build and the demo", () => {
  it("no source, test, script or config names a path outside the repository", () => {
    expect(findOutsideReferences(ROOT)).toEqual([]);
  });

  // Built from pieces so that this file itself names nothing outside.
  const up = "..";
  // Spelled apart, or the scan would find this very file.
  const slash = "/";
  const sibling = `${up}/shared`;
  it.each([
    ["a sibling folder in a string", `const dir = "${sibling}/conformance/1.0/streams";`, "test/x.test.ts"],
    [
      "resolve() from __dirname past the root",
      `const d = resolve(__dirname, "${up}/${up}/${up}/elsewhere");`,
      "test/a/x.test.ts",
    ],
    ["join() of '..' segments", `const d = join(__dirname, "${up}", "${up}", "${up}", "spec");`, "test/a/x.test.ts"],
    [
      "resolve() from a root constant",
      `const ROOT = resolve(__dirname, "${up}/${up}");\nconst d = resolve(ROOT, "${up}/corpus");`,
      "test/a/x.test.ts",
    ],
    ["an import leaving the root", `import { x } from "${up}/${up}/${up}/other/src";`, "test/a/x.ts"],
    ["a dynamic import leaving the root", `const m = await import("${up}/${up}/dist/index.cjs");`, "bench/x.ts"],
    ["a machine's absolute path", `const d = "${slash}work/spec";`, "scripts/x.ts"],
  ])("the scan finds %s", (_what, text, file) => {
    expect(scanFile(ROOT, join(ROOT, file), text)).toHaveLength(1);
  });

  it("scans what a clone holds: a file git ignores (a local profile, a scratch script) is not scanned", () => {
    const repo = mkdtempSync(join(tmpdir(), "self-contained-"));
    try {
      mkdirSync(join(repo, "bench", "profiles"), { recursive: true });
      const outside = `const d = "${sibling}/spec";\n`;
      writeFileSync(join(repo, "bench", "kept.ts"), outside);
      writeFileSync(join(repo, "bench", "profiles", "scratch.ts"), outside);
      writeFileSync(join(repo, ".gitignore"), "bench/profiles/\n");
      // Outside a git work tree every file is scanned; inside one, the ignored file is not.
      expect(findOutsideReferences(repo).map((r) => r.file)).toEqual(["bench/kept.ts", "bench/profiles/scratch.ts"]);
      expect(spawnSync("git", ["init", "-q"], { cwd: repo }).status).toBe(0);
      expect(findOutsideReferences(repo).map((r) => r.file)).toEqual(["bench/kept.ts"]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it.each([
    ["an import inside the repository", `import { x } from "../../src/index";`, "test/a/x.ts"],
    [
      "resolve() to a folder of the repository",
      `const ROOT = resolve(__dirname, "../..");\nconst d = resolve(ROOT, "test/fixtures");`,
      "test/a/x.test.ts",
    ],
    ["string joins that are not paths", `const s = parts.join("/"); const r = p.resolve("x");`, "src/x.ts"],
  ])("the scan accepts %s", (_what, text, file) => {
    expect(scanFile(ROOT, join(ROOT, file), text)).toEqual([]);
  });

  it("the vendored conformance corpus is byte-identical to what its SOURCE.md lists (SHA-256), file for file", () => {
    const source = readFileSync(join(CORPUS_ROOT, "SOURCE.md"), "utf8");
    const block = source.slice(
      source.indexOf("`shared/conformance/1.0/` (from"),
      source.indexOf("`shared/spec/1.0/` (from"),
    );
    const listed = new Map([...block.matchAll(/^- `([^`]+)` `([0-9a-f]{64})`$/gm)].map((m) => [m[1]!, m[2]!]));
    const dir = join(CORPUS_ROOT, "1.0");
    const files = (function walk(d: string): string[] {
      return readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : [relative(dir, join(d, e.name)).split("\\").join("/")],
      );
    })(dir);
    expect(listed.size).toBeGreaterThan(60);
    expect(files.sort()).toEqual([...listed.keys()].sort());
    for (const f of files)
      expect({
        f,
        sha256: createHash("sha256")
          .update(readFileSync(join(dir, f)))
          .digest("hex"),
      }).toEqual({ f, sha256: listed.get(f) });
  });
});
