/**
 * Property suite (issue 6): the package's pipeline against the independent reference model
 * (test/model/reference-model.ts) on generated streams. One file per property
 * (`pipeline-vs-model.*.property.test.ts`), so that jest's workers run them side by side.
 *
 * Seeded and reproducible: FC_SEED (default below) and FC_RUNS (total cases across the properties,
 * default 10,500) come from the environment; the seed is printed. A failing case is shrunk and saved
 * as JSON under test/regressions/, which test/regressions/replay.test.ts replays on every run.
 * MODEL_ACCEPT names known, reported package divergences the model should reproduce (see
 * KNOWN_DIVERGENCES in the model); by default there are none and the model follows the rules.
 */
import fc from "fast-check";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GeneratedCase } from "./arbitraries";
import { ACCEPTED, check, problemsOf } from "./harness";

export const SEED = Number(process.env.FC_SEED ?? 20260917);
export const TOTAL_RUNS = Number(process.env.FC_RUNS ?? 10_500);
const REGRESSIONS = join(__dirname, "..", "regressions");

/** Printed by each property file, so that a run can be reproduced. */
export function printSeed(name: string): void {
  console.log(
    `pipeline-vs-model (${name}): FC_SEED=${SEED} FC_RUNS=${TOTAL_RUNS} MODEL_ACCEPT=${[...ACCEPTED].join(",") || "(none)"}`,
  );
}

/** Runs a property with the suite's seed; a shrunk counterexample is written to test/regressions/. */
export function assertProperty(
  name: string,
  share: number,
  arb: fc.Arbitrary<GeneratedCase>,
  predicate: (c: GeneratedCase) => void,
): void {
  const numRuns = Math.max(1, Math.round(TOTAL_RUNS * share));
  const details = fc.check(fc.property(arb, predicate), { seed: SEED, numRuns });
  if (!details.failed) return;
  const counterexample = details.counterexample?.[0];
  if (counterexample !== undefined) {
    mkdirSync(REGRESSIONS, { recursive: true });
    const file = join(REGRESSIONS, `${name}-seed${SEED}.json`);
    const problems = (() => {
      try {
        const found = problemsOf(counterexample);
        return found.length > 0 ? found : [String(details.errorInstance)];
      } catch (e) {
        return [String(e)];
      }
    })();
    const record = {
      name,
      seed: SEED,
      path: details.counterexamplePath,
      problems,
      producer: counterexample.producer,
      initialMessages: counterexample.initialMessages,
      events: counterexample.events,
    };
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  }
  throw new Error(fc.defaultReportMessage(details) ?? `${name} failed`);
}

/** Pipeline and model agree on `c` (else the property fails with every disagreement). */
export function agree(c: GeneratedCase): ReturnType<typeof check> {
  const run = check(c);
  if (run.problems.length > 0) throw new Error(run.problems.join("\n"));
  return run;
}
