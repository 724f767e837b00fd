/**
 * The API report is current (docs/api.md): `npm run api:check` builds every entry point's declarations
 * and compares the API Extractor report with the reviewed `etc/*.api.md`. It fails on any API change
 * not written to etc/ by `npm run api` — an export added, a type or a warning code changed — so the
 * change is reviewed in the diff, with its CHANGELOG line.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

it("the API of every entry point is the reviewed one in etc/*.api.md (npm run api to update)", () => {
  const check = spawnSync(process.execPath, [resolve(ROOT, "etc/api-report.mjs")], { cwd: ROOT, encoding: "utf8" });
  const problems = `${check.stdout}\n${check.stderr}`
    .split("\n")
    .filter((line) => line.startsWith("etc/") || line.includes("error TS"));
  expect({ status: check.status, problems }).toEqual({ status: 0, problems: [] });
}, 600_000);
