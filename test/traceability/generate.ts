/**
 * Regenerates docs/spec-traceability.md: `npx tsx test/traceability/generate.ts`.
 * Prints what is still wrong (the same list test/traceability/matrix.test.ts fails on).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { allProblems, buildMatrix, renderMatrix } from "./matrix";

export const REPO_ROOT = resolve(__dirname, "../..");
export const MATRIX_PATH = resolve(REPO_ROOT, "docs/spec-traceability.md");

if (require.main === module) {
  const matrix = buildMatrix(REPO_ROOT);
  writeFileSync(MATRIX_PATH, renderMatrix(matrix));
  console.log(`wrote ${MATRIX_PATH} (${matrix.testCount} tests scanned)`);
  const problems = allProblems(matrix.problems);
  for (const problem of problems) console.log(`  problem: ${problem}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
