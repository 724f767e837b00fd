/**
 * The `agui-reasoning check` command never prints an encrypted value — neither in the human report
 * nor under `--json` — unless `--show-values` is given, and then it does (issue 6, "Redaction and
 * confidentiality"; R-REASON-26, D-REDACT). No output prints reasoning text either unless
 * `--show-reasoning` asks for it. Spawned as users run it, and in-process for the variants.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCheck, type CliIo } from "../../src/cli/check";
import { ev } from "../../src/testing/builders";
import { MARK } from "./scan";
import { errorStreams, warningStreams } from "./code-streams";

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
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
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
const shown = (out: string, secrets: Record<string, string>): string[] =>
  Object.entries(secrets)
    .filter(([, s]) => out.includes(s))
    .map(([name]) => name);

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
    const report = JSON.parse(out) as {
      events: { encryptedValue?: string }[];
      history: { messages: { encryptedValue?: string }[] };
      warnings: unknown[];
    };
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
  ] as const)(
    "D-REDACT: %s — the human report and --json show no value, and the report no reasoning text",
    async (_label, file, exit) => {
      const human = await check(["check", file(), "--no-progress"]);
      expect(human.code).toBe(exit);
      expect(shown(human.out, { ...VALUES, ...TEXT })).toEqual([]);
      const json = await check(["check", file(), "--json", "--no-progress"]);
      expect(json.code).toBe(exit);
      expect(shown(json.out, VALUES)).toEqual([]);
      const error = (JSON.parse(json.out) as { error: { message: string } | null }).error;
      expect(shown(JSON.stringify(error), { ...VALUES, ...TEXT })).toEqual([]);
    },
  );

  it("R-REASON-26: --history shows the history with its values redacted, unless --show-values", async () => {
    const history = await check(["check", files.valid, "--history", "--no-progress"]);
    expect(history.code).toBe(0);
    expect(shown(history.out, VALUES)).toEqual([]);
    expect(history.out).toContain("[redacted:");
    const withValues = await check(["check", files.valid, "--history", "--show-values", "--no-progress"]);
    expect(shown(withValues.out, VALUES)).toEqual(STORED);
  });
});

/**
 * Issue 12, finding 5: redaction by key name is not enough. A value the stream declared encrypted,
 * and a reasoning delta, are redacted wherever they occur in `--json` and `--history` output — a
 * `rawEvent` copy, metadata under another key, a serialized string, a CUSTOM or RAW event — unless
 * asked for (`--show-values`, `--show-reasoning`).
 */
describe("agui-reasoning check: secrets hidden under other keys", () => {
  const HIDDEN_VALUES = {
    rawCopy: `${MARK}value-raw-copy-Pq7Ls2Vb`,
    droppedThenCopied: `${MARK}value-dropped-Xe4Mn8Ht`,
    snapshotCopied: `${MARK}value-snapshot-Rk3Wd9Yc`,
    short: `${MARK}v-Sh1`,
  };
  const HIDDEN_TEXT = {
    delta: `${MARK}thought-copied-Ba6Gu1Nq`,
    snapshot: `${MARK}snapshot-copied-Fo2Zi7Tk`,
  };
  const ANSWER = "The visible answer text";
  const stream = [
    ev.runStarted("r1"),
    ev.messagesSnapshot([
      { id: "old", role: "reasoning", content: HIDDEN_TEXT.snapshot, encryptedValue: HIDDEN_VALUES.snapshotCopied },
    ] as never),
    ev.reasoningMessageStart("m1"),
    ev.reasoningMessageContent("m1", HIDDEN_TEXT.delta, { rawEvent: { thinking: HIDDEN_TEXT.delta } }),
    ev.reasoningMessageEnd("m1", { metadata: { signature: HIDDEN_VALUES.rawCopy } }),
    ev.encryptedValue("message", "m1", HIDDEN_VALUES.rawCopy, {
      rawEvent: {
        encrypted_content: HIDDEN_VALUES.rawCopy,
        serialized: JSON.stringify({ sig: HIDDEN_VALUES.rawCopy }),
      },
    }),
    ev.encryptedValue("future", "m1", HIDDEN_VALUES.droppedThenCopied),
    ev.encryptedValue("message", "nobody", HIDDEN_VALUES.short),
    ev.custom("provider-debug", {
      blob: HIDDEN_VALUES.droppedThenCopied,
      note: HIDDEN_VALUES.short,
      echo: [HIDDEN_TEXT.delta],
    }),
    ev.raw({ original: { reasoning: HIDDEN_TEXT.snapshot, value: HIDDEN_VALUES.snapshotCopied } }),
    ev.textStart("a1"),
    ev.textContent("a1", ANSWER),
    ev.textEnd("a1"),
    ev.runFinished("r1"),
  ];
  let path: string;
  beforeAll(() => {
    path = join(dir, "hidden.jsonl");
    writeFileSync(path, jsonl(stream));
  });

  it.each([[["--json"]], [["--history"]]])(
    "R-REASON-25/26 D-REDACT: check %j prints no value and no reasoning text, wherever they hide",
    async (flags) => {
      const r = await check(["check", path, "--no-progress", ...flags]);
      expect(r.code).toBe(0);
      expect(shown(r.out, { ...HIDDEN_VALUES, ...HIDDEN_TEXT })).toEqual([]);
      if (flags[0] === "--json") {
        expect(r.out).toContain(ANSWER);
        const report = JSON.parse(r.out) as { events: Record<string, unknown>[] };
        const value = report.events.find((e) => e.type === "REASONING_ENCRYPTED_VALUE")!;
        expect(value.rawEvent).toEqual({
          encrypted_content: `[redacted: ${Buffer.byteLength(HIDDEN_VALUES.rawCopy)} bytes]`,
          serialized: JSON.stringify({ sig: `[redacted: ${Buffer.byteLength(HIDDEN_VALUES.rawCopy)} bytes]` }),
        });
        expect(report.events.find((e) => e.type === "CUSTOM")!.value).toEqual({
          blob: `[redacted: ${Buffer.byteLength(HIDDEN_VALUES.droppedThenCopied)} bytes]`,
          note: `[redacted: ${Buffer.byteLength(HIDDEN_VALUES.short)} bytes]`,
          echo: [`[reasoning: ${Array.from(HIDDEN_TEXT.delta).length} characters]`],
        });
      }
    },
  );

  it("R-REASON-26: --show-values prints the values, still not the reasoning text; --show-reasoning the reverse", async () => {
    const values = await check(["check", path, "--json", "--show-values", "--no-progress"]);
    expect(shown(values.out, HIDDEN_VALUES)).toEqual(Object.keys(HIDDEN_VALUES));
    expect(shown(values.out, HIDDEN_TEXT)).toEqual([]);
    const reasoning = await check(["check", path, "--json", "--show-reasoning", "--no-progress"]);
    expect(shown(reasoning.out, HIDDEN_VALUES)).toEqual([]);
    expect(shown(reasoning.out, HIDDEN_TEXT)).toEqual(Object.keys(HIDDEN_TEXT));
  });

  it("D-REDACT: the human report, --format github and --format junit print none of them either", async () => {
    for (const flags of [[], ["--format", "github"], ["--format", "junit"]]) {
      const r = await check(["check", path, "--no-progress", ...flags]);
      expect(shown(r.out, { ...HIDDEN_VALUES, ...HIDDEN_TEXT })).toEqual([]);
    }
  });
});

/**
 * The scan over every error and warning stream of the redaction corpus (code-streams.ts), each
 * event carrying a `rawEvent` copy of itself under other keys and serialized — the way SDKs forward a
 * provider's original event —
 * checked with `--json`: no declared value and no reasoning delta of the stream is in the output.
 */
describe("agui-reasoning check --json over the code streams, every event with a rawEvent copy of itself", () => {
  /** Values (under `encryptedValue` at any depth) and reasoning text (deltas, reasoning messages' content). */
  function declaredSecrets(events: readonly unknown[]): Set<string> {
    const found = new Set<string>();
    const stack: unknown[] = [...events];
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node !== "object" || node === null) continue;
      const o = node as Record<string, unknown>;
      if (typeof o.encryptedValue === "string" && o.encryptedValue.includes(MARK)) found.add(o.encryptedValue);
      const reasoningDelta = [
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_CHUNK",
        "THINKING_TEXT_MESSAGE_CONTENT",
      ].includes(o.type as string);
      if (reasoningDelta && typeof o.delta === "string" && o.delta.includes(MARK)) found.add(o.delta);
      if (o.role === "reasoning" && typeof o.content === "string" && o.content.includes(MARK)) found.add(o.content);
      stack.push(...Object.values(o));
    }
    return found;
  }

  const streams = [...errorStreams(), ...warningStreams()].filter((s) => s.options === undefined);

  it("covers the corpus", () => {
    expect(streams.length).toBeGreaterThanOrEqual(20);
  });

  it.each(streams.map((s, i) => [`${s.kind} ${s.code} #${i}`, s] as const))("D-REDACT: %s", async (_name, s) => {
    // The copy keeps no key name (its values, and the event serialized): only redaction by occurrence finds them.
    const copy = (e: object): unknown => ({
      values: JSON.parse(JSON.stringify(Object.values(e))) as unknown,
      serialized: JSON.stringify(e),
    });
    const events = s.events.map((e) =>
      typeof e === "object" && e !== null && !Array.isArray(e) ? { ...e, rawEvent: copy(e) } : e,
    );
    const secrets = declaredSecrets(events);
    const path = join(dir, `code-${_name.replace(/\W+/g, "-")}.jsonl`);
    writeFileSync(path, jsonl(events));
    const r = await check(["check", path, "--json", "--no-progress"]);
    expect([...secrets].filter((x) => r.out.includes(x)).map((x) => x.slice(0, 30))).toEqual([]);
  });
});
