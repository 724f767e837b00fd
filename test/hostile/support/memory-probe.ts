/**
 * Heap probe for the hostile suite's memory test (run as `node --expose-gc --import tsx …`, since
 * jest cannot expose `gc`). Streams `runs` runs of one scenario lazily through one facade and prints,
 * as one JSON line, the heap used after a full collection at each checkpoint run.
 *
 *   node --expose-gc --import tsx test/hostile/support/memory-probe.ts <scenario> <runs> <checkpoint>…
 */
import { from } from "rxjs";
import { reasoningPipeline } from "../../../src/pipeline/reasoning-pipeline";
import { MEMORY_SCENARIOS, type MemoryScenario } from "./memory-scenarios";

const [name, runsArg, ...checkpointArgs] = process.argv.slice(2);
const scenario: MemoryScenario | undefined = MEMORY_SCENARIOS[name ?? ""];
const gc = (globalThis as { gc?: () => void }).gc;
if (scenario === undefined || gc === undefined) {
  process.stderr.write(
    `usage: node --expose-gc --import tsx memory-probe.ts <${Object.keys(MEMORY_SCENARIOS).join("|")}> <runs> <checkpoint>…\n`,
  );
  process.exit(2);
}
const runs = Number(runsArg);
const checkpoints = new Set(checkpointArgs.map(Number));

/** Every event of every run, generated as the source pulls them (the input itself takes no memory). */
function* stream(): Generator<unknown> {
  for (let run = 0; run < runs; run++) yield* scenario!(run);
}

const heap: Record<string, number> = {};
let finished = 0;
const pipeline = reasoningPipeline(from(stream()), { producer: "probe", onWarning: () => {} });
let failure: unknown;
pipeline.events$.subscribe({
  next(event) {
    if ((event as { type?: unknown }).type !== "RUN_FINISHED" && (event as { type?: unknown }).type !== "RUN_ERROR")
      return;
    finished++;
    if (!checkpoints.has(finished)) return;
    gc();
    gc();
    heap[finished] = process.memoryUsage().heapUsed;
  },
  error: (error: unknown) => (failure = error),
});
process.stdout.write(
  `${JSON.stringify({ scenario: name, runs: finished, heap, messages: pipeline.history.messages.length, failure: failure === undefined ? null : String(failure) })}\n`,
);
