import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildSync } from "esbuild";

/**
 * `npm run bench:ab -- <ref> [mixed|parallel] [runs=4000] [rounds=21]`: the paced facade of the work
 * tree against the one of `<ref>` (a commit, a branch), in one process, alternated round by round.
 *
 * Why one process: separate processes of `bench:paced` drift by 15–20 % between them on this 2-core
 * machine, even quiet (the heap's sizing, the CPU's state), which hides a change of a few per cent.
 * Here both bundles (each tree's `src/`, bundled as `dist/` is) run the same events, the floor beside
 * them, each sample from a collected heap, the order swapped every round; the medians are compared.
 * `<ref>` is checked out in a detached git worktree under `.tmp/` (git-ignored), removed at the end.
 * Its "× floor" is this process's (the floor runs faster beside two pipelines than alone): compare
 * the two trees by their quotient, and read P1 from `bench:paced`.
 */

const ROOT = resolve(__dirname, "..");
const [ref, shape = "mixed", runsArg = "4000", roundsArg = "21"] = process.argv.slice(2);

/** `entry` bundled into `out` as `bench:paced` bundles (packages external). */
function bundle(entry: string, out: string): void {
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    outfile: out,
  });
}

/** The facade of `tree`'s `src/`, bundled into `out`. */
function bundleFacade(tree: string, out: string): void {
  const entry = join(tree, ".tmp", "ab-entry.ts");
  mkdirSync(join(tree, ".tmp"), { recursive: true });
  writeFileSync(entry, `export { reasoningPipeline } from "../src";\n`);
  bundle(entry, out);
}

function main(): void {
  if (ref === undefined || (shape !== "mixed" && shape !== "parallel")) {
    throw new Error("usage: npm run bench:ab -- <ref> [mixed|parallel] [runs] [rounds]");
  }
  const other = join(ROOT, ".tmp", "ab-worktree");
  if (existsSync(other)) execFileSync("git", ["worktree", "remove", "--force", other], { cwd: ROOT });
  execFileSync("git", ["worktree", "add", "--detach", other, ref], { cwd: ROOT, stdio: "ignore" });
  try {
    // Its bundle resolves the packages (rxjs, @ag-ui/core, zod) from this tree's node_modules.
    symlinkSync(join(ROOT, "node_modules"), join(other, "node_modules"), "dir");
    const here = join(ROOT, ".tmp", "ab-here.js");
    const there = join(ROOT, ".tmp", "ab-there.js");
    bundleFacade(ROOT, here);
    bundleFacade(other, there);
    const driver = join(ROOT, ".tmp", "ab-driver.js");
    bundle(join(ROOT, "bench", "ab-driver.ts"), driver);
    execFileSync(
      process.execPath,
      ["--expose-gc", driver, shape, runsArg, roundsArg, `work tree=${here}`, `${ref}=${there}`],
      { stdio: "inherit" },
    );
  } finally {
    execFileSync("git", ["worktree", "remove", "--force", other], { cwd: ROOT });
  }
}

main();
