import { existsSync, readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import path from "node:path";

/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): self time per file, per function and per
 * source line, largest first, so hot spots can be named precisely (file:line). Positions in a
 * bundle with a `.map` beside it (see docs/performance.md) are mapped back to the TypeScript source.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile>… [top=25]
 *
 * `node --cpu-prof` also profiles helper threads; the busiest profile is the one summarized.
 */
interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based. */
  readonly lineNumber: number;
  readonly columnNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  /** Samples per 1-based line of the generated code, when V8 recorded them. */
  readonly positionTicks?: readonly { readonly line: number; readonly ticks: number }[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
interface Summary {
  /** Sampled time that was not idle (µs). */
  readonly busy: number;
  readonly byFile: Map<string, number>;
  readonly byFunction: Map<string, number>;
  readonly byLine: Map<string, number>;
}

const ROOT = path.resolve(__dirname, "..");

function main(): void {
  const args = process.argv.slice(2);
  const files = args.filter((a) => !/^\d+$/.test(a));
  const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
  if (files.length === 0) throw new Error("usage: npx tsx bench/profile-summary.ts <file.cpuprofile>… [top]");
  const summaries = files.map((file) => summarize(JSON.parse(readFileSync(file, "utf8")) as Profile));
  const { busy, byFile, byFunction, byLine } = summaries.sort((a, b) => b.busy - a.busy)[0]!;
  const print = (title: string, entries: Map<string, number>): void => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(
        `${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}\n`,
      );
    }
  };
  process.stdout.write(`busy (sampled, not idle): ${(busy / 1000).toFixed(0)} ms\n`);
  print("self time by file", byFile);
  print("self time by function", byFunction);
  if (byLine.size > 0) print("self time by line", byLine);
}

function summarize(profile: Profile): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Self time per node (µs): each sample's delta belongs to the frame on top of the stack.
  const self = new Map<number, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    if (!node || node.callFrame.functionName === "(idle)") continue;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(node.id, (self.get(node.id) ?? 0) + dt);
    busy += dt;
  }
  const summary: Summary = { busy, byFile: new Map(), byFunction: new Map(), byLine: new Map() };
  const add = (map: Map<string, number>, key: string, us: number): void => {
    map.set(key, (map.get(key) ?? 0) + us);
  };
  for (const [id, us] of self) {
    const { callFrame: frame, positionTicks } = byId.get(id)!;
    if (!frame.url) {
      add(summary.byFile, frame.functionName, us);
      add(summary.byFunction, frame.functionName, us);
      continue;
    }
    const start = original(frame.url, frame.lineNumber, frame.columnNumber);
    add(summary.byFile, start.file, us);
    add(summary.byFunction, `${start.file}:${start.line} ${frame.functionName || "(anonymous)"}`, us);
    // Split the node's self time over its lines in proportion to their ticks.
    const ticks = positionTicks ?? [];
    const totalTicks = ticks.reduce((n, t) => n + t.ticks, 0);
    for (const t of ticks) {
      const at = original(frame.url, t.line - 1, -1);
      add(summary.byLine, `${at.file}:${at.line} (${frame.functionName || "anonymous"})`, (us * t.ticks) / totalTicks);
    }
  }
  return summary;
}

// Source maps of generated files, by URL (`null`: the file has none).
const maps = new Map<string, SourceMap | null>();

/** A generated position (0-based line; column -1 = anywhere on the line) as a short original location (1-based line). */
function original(url: string, line: number, column: number): { file: string; line: number } {
  const file = url.startsWith("file://") ? new URL(url).pathname : url;
  const map = sourceMapOf(file);
  if (map) {
    // A late column finds the line's last mapping (findEntry returns the closest one at or before).
    const entry = map.findEntry(line, column >= 0 ? column : 10_000) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (typeof entry.originalSource === "string" && typeof entry.originalLine === "number") {
      const source = entry.originalSource.startsWith("file://")
        ? new URL(entry.originalSource).pathname
        : entry.originalSource;
      return { file: short(path.resolve(path.dirname(file), source)), line: entry.originalLine + 1 };
    }
  }
  return { file: short(file), line: line + 1 };
}

function sourceMapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = existsSync(`${file}.map`)
      ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")) as SourceMapPayload)
      : null;
    maps.set(file, map);
  }
  return map;
}

/** Repo-relative for our files, `package/path` for dependencies. */
function short(file: string): string {
  const nm = file.lastIndexOf("node_modules/");
  if (nm >= 0) return file.slice(nm + "node_modules/".length);
  return file.startsWith(ROOT) ? path.relative(ROOT, file) : file;
}

main();
