// `npm run mutation`: Stryker on each part of the scope in turn (stryker.config.mjs, MUTATION_PART), then
// the score per file and in all from the parts' JSON reports. `node etc/mutation.mjs --report` only adds
// up the reports of earlier runs. Stryker's score: killed and timed-out mutants over every mutant that
// is not ignored (survivors and mutants no test reaches count against it).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const PARTS = ["runner", "lane", "discipline"];

if (!process.argv.includes("--report")) {
  for (const part of PARTS) {
    const run = spawnSync("npx", ["stryker", "run"], {
      stdio: "inherit",
      env: { ...process.env, MUTATION_PART: part },
      shell: process.platform === "win32",
    });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
}

const DETECTED = new Set(["Killed", "Timeout"]);
const COUNTED = new Set(["Killed", "Timeout", "Survived", "NoCoverage"]);
const rows = [];
for (const part of PARTS) {
  const path = `reports/mutation/${part}/mutation.json`;
  if (!existsSync(path)) {
    console.log(`${part}: no report yet (${path})`);
    continue;
  }
  const report = JSON.parse(readFileSync(path, "utf8"));
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const count = (statuses) => mutants.filter((m) => statuses.has(m.status)).length;
    const of = (status) => mutants.filter((m) => m.status === status).length;
    rows.push({
      file,
      killed: count(DETECTED),
      survived: of("Survived"),
      noCoverage: of("NoCoverage"),
      counted: count(COUNTED),
    });
  }
}
const total = rows.reduce(
  (sum, r) => ({
    killed: sum.killed + r.killed,
    survived: sum.survived + r.survived,
    noCoverage: sum.noCoverage + r.noCoverage,
    counted: sum.counted + r.counted,
  }),
  { killed: 0, survived: 0, noCoverage: 0, counted: 0 },
);
const score = (r) => `${((100 * r.killed) / Math.max(1, r.counted)).toFixed(1)} %`;
for (const r of [...rows, { file: "all", ...total }]) {
  console.log(
    `${r.file.padEnd(36)} ${score(r).padStart(7)}  killed ${r.killed}, survived ${r.survived}, no coverage ${r.noCoverage}`,
  );
}
