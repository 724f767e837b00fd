import { performance } from "node:perf_hooks";
import { from } from "rxjs";
import { reasoningPipeline } from "../src";
import { buildStream } from "./streams";

/**
 * How much of the facade's growth in time per event (M2, issue 13) is the collector working over a
 * larger heap rather than the pipeline doing more per event: the facade over a small mixed
 * conversation, alone and with an unrelated ballast held beside it — the events array of a large
 * conversation, which `bench/run.ts` holds while it times that conversation — and over the large
 * conversation itself. Prints the median time per event of each.
 *
 *   npx esbuild bench/ballast.ts --bundle --platform=node --format=cjs --packages=external \
 *     --outfile=bench/profiles/ballast.js && node bench/profiles/ballast.js [small=1000] [large=16000]
 */

const small = Number(process.argv[2] ?? 1_000);
const large = Number(process.argv[3] ?? 16_000);

function nsPerEvent(runs: number): number {
  const events = buildStream({ kind: "conversation", shape: "mixed", runs }).events;
  const once = (): number => {
    const started = performance.now();
    const p = reasoningPipeline(from(events), { producer: "bench://agent" });
    // The latest history, kept as an application keeps it.
    let latest: unknown;
    p.history$.subscribe((h) => (latest = h));
    p.warnings$.subscribe(() => {});
    p.events$.subscribe({ next: () => {} });
    if (latest === undefined) throw new Error("no history");
    return performance.now() - started;
  };
  for (let i = 0; i < 3; i++) once();
  const times = Array.from({ length: Math.max(7, Math.round(64_000 / runs)) }, once).sort((a, b) => a - b);
  return (times[times.length >> 1]! * 1e6) / events.length;
}

const alone = nsPerEvent(small);
const ballast = buildStream({ kind: "conversation", shape: "mixed", runs: large });
const withBallast = nsPerEvent(small);
const largeAlone = ballast.events.length > 0 ? nsPerEvent(large) : NaN;
process.stdout.write(
  `mixed conversation, ns per event (median):\n` +
    `  ${small} runs alone:                            ${alone.toFixed(0)}\n` +
    `  ${small} runs, ${large} runs' events held beside: ${withBallast.toFixed(0)}\n` +
    `  ${large} runs (its own events held):           ${largeAlone.toFixed(0)}\n`,
);
