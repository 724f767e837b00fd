import { performance } from "node:perf_hooks";
import { buildStream, type Form, type StreamSpec } from "./streams";
import { VARIANT_RUNNERS, VARIANTS, type VariantName } from "./variants";

/**
 * A steady workload for the CPU profiler: one variant over one stream, repeated.
 *
 * Profile a bundle with a source map (tsx compiles each file to one line, so its profiles name
 * functions but not lines; bench/profiles/ is git-ignored):
 *
 *   npx esbuild bench/profile.ts --bundle --platform=node --format=cjs --sourcemap \
 *     --packages=external --outfile=bench/profiles/profile.js
 *   node --cpu-prof --cpu-prof-dir=bench/profiles/run bench/profiles/profile.js pipeline chunked 8
 *   npx tsx bench/profile-summary.ts bench/profiles/run/*.cpuprofile 30
 *
 * The paced facade (D-PACE): BENCH_PACE=16 before `node` (the pipeline variant with `historyPace: 16`).
 *
 * Arguments: variant pipeline (default) | validated | chained | floor | reference; stream chunked (default) |
 * explicit | long (1,000 prior messages) | long:<prior> | mixed:<runs> | parallel:<runs> (default 4,000 runs); repeats (default 20). N = 100,000 deltas (10,000 for
 * long, 2,000 for the reference, which is quadratic).
 */
async function main(): Promise<void> {
  const [variantArg = "pipeline", streamArg = "chunked", repeatsArg = "20"] = process.argv.slice(2);
  if (!VARIANTS.includes(variantArg as VariantName)) throw new Error(`unknown variant ${variantArg}`);
  const variant = variantArg as VariantName;
  const n = variant === "reference" ? 2_000 : 100_000;
  // "long" or "long:<prior messages>" (default 1,000).
  const [name, count] = streamArg.split(":");
  const spec: StreamSpec =
    name === "mixed" || name === "parallel"
      ? { kind: "conversation", shape: name, runs: Number(count ?? 4_000) }
      : name === "long"
        ? { kind: "long", prior: Number(count ?? 1_000), n: Math.min(n, 10_000) }
        : { kind: "deltas", form: streamArg as Form, n };
  const stream = buildStream(spec);
  const run = VARIANT_RUNNERS[variant];
  const repeats = Number(repeatsArg);
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t = performance.now();
    await run(stream);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(
    `${variant} ${stream.key}: ${repeats} runs, median ${times[times.length >> 1]!.toFixed(1)} ms, ` +
      `${(((stream.events.length / times[times.length >> 1]!) * 1000) / 1e6).toFixed(2)}M events/s\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
