/**
 * `npm run bench:cli` (issue 22): `agui-reasoning check` on 1 M events of a mixed conversation
 * (bench/streams.ts, ≈ 67 MB of JSON Lines) against the floor of reading the same file and
 * `JSON.parse`-ing each line, both measured in this run, each in a fresh child process, best of
 * three; and the peak memory (maximum resident set) of each. The goal is `check` within 3× the floor.
 * Needs the build (`dist/cli.mjs`): `npm run build` first.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildStream } from "./streams";

const ROOT = resolve(__dirname, "..");
const EVENTS = Number(process.env.BENCH_CLI_EVENTS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_CLI_REPEAT ?? 3);

/**
 * The floor: the file read as a stream of lines, each parsed; it prints how many it parsed, which
 * must be every event (the script's own path is argv[1]: a floor that read itself failed at once and
 * was timed as node's start-up, 0.16 s).
 */
const FLOOR = `
const { createReadStream } = require("node:fs");
const { createInterface } = require("node:readline");
(async () => {
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(process.argv[2]), crlfDelay: Infinity }))
    if (line !== "") { JSON.parse(line); n++; }
  process.stdout.write(String(n));
})();
`;

interface Measured {
  readonly ms: number;
  /** CPU time (user + system, every thread): less sensitive than `ms` to other work on the machine. */
  readonly cpuMs: number;
  readonly maxRssMB: number;
  readonly stdout: string;
}

/** One child process, timed from outside; GNU time's CPU time and maximum resident set. It must exit 0. */
function measure(args: readonly string[]): Measured {
  const started = process.hrtime.bigint();
  // The report (a block per run) is read and dropped: only its making is timed.
  const r = spawnSync("/usr/bin/time", ["-f", "%M %U %S", process.execPath, ...args], {
    encoding: "utf8",
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  const [kb, user, system] = r.stderr.trim().split("\n").at(-1)!.split(" ").map(Number) as [number, number, number];
  return { ms, cpuMs: (user + system) * 1000, maxRssMB: kb / 1024, stdout: r.stdout };
}

function best(list: Measured[]): Measured {
  return list.reduce((a, b) => (b.ms < a.ms ? b : a));
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), "agui-bench-cli-"));
  try {
    const stream = buildStream({ kind: "conversation", shape: "mixed", runs: Math.ceil(EVENTS / 63) });
    const path = join(dir, "mixed.jsonl");
    writeFileSync(path, `${stream.events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    const floorScript = join(dir, "floor.js");
    writeFileSync(floorScript, FLOOR);
    const size = statSync(path).size / 1_048_576;
    const floor: Measured[] = [];
    const check: Measured[] = [];
    for (let i = 0; i < REPEAT; i++) {
      const parsed = measure([floorScript, path]);
      if (parsed.stdout !== String(stream.events.length))
        throw new Error(`the floor parsed ${parsed.stdout} lines, not ${stream.events.length}`);
      floor.push(parsed);
      const checked = measure([join(ROOT, "dist/cli.mjs"), "check", path, "--no-progress"]);
      if (!checked.stdout.includes("✓ valid")) throw new Error("check did not find the stream valid");
      check.push(checked);
    }
    // The machine's load (1-minute average) after the runs: on a shared machine the figures scale with it.
    const load = Number(loadavg()[0]!.toFixed(2));
    const f = best(floor);
    const c = best(check);
    const result = {
      events: stream.events.length,
      megabytes: Number(size.toFixed(1)),
      floorMs: Math.round(f.ms),
      checkMs: Math.round(c.ms),
      ratio: Number((c.ms / f.ms).toFixed(2)),
      floorCpuMs: Math.round(f.cpuMs),
      checkCpuMs: Math.round(c.cpuMs),
      cpuRatio: Number((c.cpuMs / f.cpuMs).toFixed(2)),
      floorMaxRssMB: Math.round(f.maxRssMB),
      checkMaxRssMB: Math.round(c.maxRssMB),
      load,
    };
    console.log(
      `check on ${result.events.toLocaleString("en-US")} events (${result.megabytes} MB JSON Lines): ` +
        `${result.checkMs} ms vs read + JSON.parse ${result.floorMs} ms = ${result.ratio}× (goal ≤ 3×), ` +
        `CPU time ${result.checkCpuMs} ms vs ${result.floorCpuMs} ms = ${result.cpuRatio}×; ` +
        `peak RSS ${result.checkMaxRssMB} MB (floor ${result.floorMaxRssMB} MB); load average ${load}`,
    );
    console.log(JSON.stringify(result));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
