/**
 * The `agui-reasoning check` command never prints an encrypted value — neither in the human report
 * nor under `--json` — unless `--show-values` is given, and then it does (issue 6, "Redaction and
 * confidentiality"; R-REASON-26, D-REDACT). The human report prints no reasoning text either, except
 * the history when `--history` asks for it. Spawned as users run it, and in-process for the variants.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCheck, type CliIo } from "../../src/cli/check";
import { ev } from "../../src/testing/builders";
import { MARK } from "./scan";

const ROOT = resolve(__dirname, "../..");

const VALUES = {
  onReasoning: `${MARK}value-reasoning-Hx4Kq9Tz`,
  onToolCall: `${MARK}value-toolcall-Wm2Rb7Np`,
  unknownTarget: `${MARK}value-stray-Ja8Lc3Vd`,
  unknownSubtype: `${MARK}value-future-Qs1Fe6Gy`,
};
const TEXT = {
  thought: `${MARK}thought-Zn5Pw0Ck`,
  legacy: `${MARK}legacy-thought-Ub3Xi8Mo`,
  title: `${MARK}title-Ev7Hs2Ra`,
  args: `${MARK}args-Ly9Dt4Wf`,
};

const valid = [
  ev.runStarted("r1"),
  ev.reasoningStart("s1"),
  ev.reasoningChunk("m1", TEXT.thought),
  ev.reasoningChunk(undefined, TEXT.thought),
  ev.reasoningEnd("s1"),
  ev.encryptedValue("message", "m1", VALUES.onReasoning),
  ev.toolCallChunk("tc1", "search", TEXT.args),
  ev.encryptedValue("tool-call", "tc1", VALUES.onToolCall),
  ev.encryptedValue("message", "nobody", VALUES.unknownTarget),
  ev.encryptedValue("future", "m1", VALUES.unknownSubtype),
  ev.thinkingStart({ title: TEXT.title }),
  ev.thinkingTextMessageStart(),
  ev.thinkingTextMessageContent(TEXT.legacy),
  ev.thinkingTextMessageEnd(),
  ev.thinkingEnd(),
  ev.runFinished("r1"),
];
/** Fails at the last event, a delta for a message nothing opened. */
const violating = [...valid.slice(0, -1), ev.reasoningMessageContent("ghost", TEXT.thought)];
/** Ends inside the run. */
const truncated = valid.slice(0, 8);

const jsonl = (events: readonly unknown[]): string => `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
const sse = (events: readonly unknown[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

let dir: string;
let files: { valid: string; violating: string; truncated: string; sse: string };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agui-redaction-"));
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  files = {
    valid: write("valid.jsonl", jsonl(valid)),
    violating: write("violating.jsonl", jsonl(violating)),
    truncated: write("truncated.jsonl", jsonl(truncated)),
    sse: write("valid.sse", sse(valid)),
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command as users run it. */
function spawnCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn("npx", ["tsx", "src/cli/main.ts", ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, out }));
    child.stdin.end();
  });
}

/** The command in-process (stdout and stderr together). */
async function check(args: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (out += t), isTTY: false },
    stdin: (async function* () {})(),
  };
  const code = await runCheck(args, io);
  return { code, out };
}

/** Which of `secrets` an output shows. */
const shown = (out: string, secrets: Record<string, string>): string[] => Object.entries(secrets).filter(([, s]) => out.includes(s)).map(([name]) => name);

const STORED = ["onReasoning", "onToolCall"];

describe("agui-reasoning check (spawned)", () => {
  let runs: Record<"json" | "human" | "jsonShow" | "humanShow", { code: number | null; out: string }>;
  beforeAll(async () => {
    const [json, human, jsonShow, humanShow] = await Promise.all([
      spawnCli(["check", files.valid, "--json", "--no-progress"]),
      spawnCli(["check", files.valid]),
      spawnCli(["check", files.valid, "--json", "--show-values", "--no-progress"]),
      spawnCli(["check", files.valid, "--show-values"]),
    ]);
    runs = { json, human, jsonShow, humanShow };
  }, 60_000);

  it("R-REASON-26 D-REDACT: --json prints no encrypted value — events and history carry byte lengths instead", () => {
    const { code, out } = runs.json;
    expect(code).toBe(0);
    expect(shown(out, VALUES)).toEqual([]);
    const report = JSON.parse(out) as { events: { encryptedValue?: string }[]; history: { messages: { encryptedValue?: string }[] }; warnings: unknown[] };
    expect(report.events.filter((e) => e.encryptedValue !== undefined).map((e) => e.encryptedValue)).toEqual([
      `[redacted: ${Buffer.byteLength(VALUES.onReasoning)} bytes]`,
      `[redacted: ${Buffer.byteLength(VALUES.onToolCall)} bytes]`,
    ]);
    expect(JSON.stringify(report.history)).toContain("[redacted:");
    expect(report.warnings.length).toBeGreaterThan(0);
  });

  it("R-REASON-25/26 D-REDACT: the human report prints neither values nor reasoning text, titles or arguments", () => {
    const { code, out } = runs.human;
    expect(code).toBe(0);
    expect(shown(out, { ...VALUES, ...TEXT })).toEqual([]);
    expect(out).toContain("encrypted values");
  });

  it("R-REASON-26: --show-values prints the stored values, under --json and in the human report", () => {
    expect(runs.jsonShow.code).toBe(0);
    expect(shown(runs.jsonShow.out, VALUES)).toEqual(STORED);
    expect(runs.humanShow.code).toBe(0);
    expect(shown(runs.humanShow.out, VALUES)).toEqual(STORED);
    // Values never stored (unknown target, unknown subtype) are reported by byte length only, even then.
    expect(shown(runs.humanShow.out, TEXT)).toEqual([]);
  });
});

describe("agui-reasoning check (in-process variants)", () => {
  it.each([
    ["a violation", () => files.violating, 1],
    ["a truncated run", () => files.truncated, 1],
    ["SSE input", () => files.sse, 0],
  ] as const)("D-REDACT: %s — the human report and --json show no value, and the report no reasoning text", async (_label, file, exit) => {
    const human = await check(["check", file(), "--no-progress"]);
    expect(human.code).toBe(exit);
    expect(shown(human.out, { ...VALUES, ...TEXT })).toEqual([]);
    const json = await check(["check", file(), "--json", "--no-progress"]);
    expect(json.code).toBe(exit);
    expect(shown(json.out, VALUES)).toEqual([]);
    const error = (JSON.parse(json.out) as { error: { message: string } | null }).error;
    expect(shown(JSON.stringify(error), { ...VALUES, ...TEXT })).toEqual([]);
  });

  it("R-REASON-26: --history shows the history with its values redacted, unless --show-values", async () => {
    const history = await check(["check", files.valid, "--history", "--no-progress"]);
    expect(history.code).toBe(0);
    expect(shown(history.out, VALUES)).toEqual([]);
    expect(history.out).toContain("[redacted:");
    const withValues = await check(["check", files.valid, "--history", "--show-values", "--no-progress"]);
    expect(shown(withValues.out, VALUES)).toEqual(STORED);
  });
});
