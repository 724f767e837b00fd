/**
 * `agui-reasoning check`: spawned as users run it from a checkout (`node --import tsx src/cli/main.ts`, what `npx tsx` runs without its two wrapper processes) for the exit codes
 * and process wiring, and called in-process (`runCheck`) for the report details, which is faster.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCheck, type CliIo } from "../../src/cli/check";
import { ev } from "../../src/testing/builders";
import { startAgentServer, type AgentServer } from "../support/sse-server";

const ROOT = resolve(__dirname, "../..");
const SECRET_VALUE = "gAAAAA-SECRET-VALUE-é😀==";
const SECRET_THOUGHT = "the user seems unsure";

/** A valid run: a span of chunked reasoning, a stored value, an unknown-entity value, an answer. */
const valid = [
  ev.runStarted("r1"),
  ev.reasoningStart("s1"),
  ev.reasoningChunk("m1", SECRET_THOUGHT),
  ev.reasoningChunk(undefined, " — 😀"),
  ev.reasoningEnd("s1"),
  ev.encryptedValue("message", "m1", SECRET_VALUE),
  ev.encryptedValue("message", "nobody", "x"),
  ev.textStart("a1"),
  ev.textContent("a1", "Hello"),
  ev.textEnd("a1"),
  ev.runFinished("r1"),
];
/** Content for a message nothing opened, at event #3 (line 4). */
const orphan = [
  ev.runStarted("r1"),
  ev.reasoningMessageStart("m1"),
  ev.reasoningMessageEnd("m1"),
  ev.reasoningMessageContent("ghost", SECRET_THOUGHT),
];

const jsonl = (events: readonly unknown[]): string => `${events.map((e) => JSON.stringify(e)).join("\n")}\n`;
const sse = (events: readonly unknown[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agui-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs the real command in a child process. */
function spawnCli(args: string[], stdin?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin ?? "");
  });
}

/** Runs `runCheck` in-process with captured streams. */
async function check(
  args: string[],
  stdin = "",
  isTTY = false,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t), isTTY },
    stdin: (async function* () {
      if (stdin) yield Buffer.from(stdin);
    })(),
  };
  const code = await runCheck(args, io);
  return { code, stdout, stderr };
}

describe("agui-reasoning check (spawned)", () => {
  it("R-REASON-25 a valid JSON Lines file: exit 0, spans, reasoning characters, values as count and bytes only", async () => {
    const r = await spawnCli(["check", file("valid.jsonl", jsonl(valid))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("(JSON Lines, 11 events)");
    expect(r.stdout).toMatch(/spans\s+1 {2}"s1"/);
    expect(r.stdout).toMatch(/reasoning messages\s+1 {2}"m1" 25 characters/);
    expect(r.stdout).toMatch(/encrypted values\s+1 {2}message "m1" 28 bytes/);
    expect(r.stdout).toContain("UNKNOWN_ENTITY");
    expect(r.stdout).toContain("✓ valid: 1 run, 1 warning");
    expect(r.stdout).not.toContain(SECRET_VALUE);
    expect(r.stdout).not.toContain(SECRET_THOUGHT);
  }, 60_000);

  it("R-REASON-9 a violation: exit 1, the first violation with event index, line, code, rule and explanation", async () => {
    const r = await spawnCli(["check", file("orphan.jsonl", jsonl(orphan))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "✗ First violation at event #3 (line 4) REASONING_MESSAGE_CONTENT: ORPHAN_CONTENT (R-REASON-9)",
    );
    expect(r.stdout).toContain("content names an item nothing opened");
    expect(r.stdout).not.toContain(SECRET_THOUGHT);
  }, 60_000);

  it("D-REDACT bad JSON on a line: exit 2, a message naming the line, no content and no stack trace", async () => {
    const r = await spawnCli([
      "check",
      file("broken.jsonl", `${JSON.stringify(valid[0])}\n\n{"type":"REASONING_START", ${SECRET_THOUGHT}\n`),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.jsonl: line 3: not valid JSON/);
    expect(r.stderr).not.toContain(SECRET_THOUGHT);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
  }, 60_000);

  it("R-TRANS-4 raw SSE on stdin (`-`) is detected and checked", async () => {
    const r = await spawnCli(["check", "-", "--json"], sse(valid));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { outcome: string; events: Array<{ type: string }> };
    expect(out.outcome).toBe("completed");
    expect(out.events[2]).toEqual({ type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" });
  }, 60_000);
});

describe("agui-reasoning check (in-process)", () => {
  it("D-REDACT --json: outcome, error, warnings, validated events and history; values redacted unless --show-values", async () => {
    const r = await check(["check", file("valid-json.jsonl", jsonl(valid)), "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual([
      "schemaVersion",
      "outcome",
      "input",
      "error",
      "counts",
      "runs",
      "warnings",
      "events",
      "history",
    ]);
    expect(out.outcome).toBe("completed");
    expect(out.error).toBeNull();
    expect(out.warnings.map((w: { code: string }) => w.code)).toEqual(["UNKNOWN_ENTITY"]);
    expect(out.events.map((e: { type: string }) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "REASONING_ENCRYPTED_VALUE",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(out.events[7].encryptedValue).toBe("[redacted: 28 bytes]");
    expect(out.history.messages[0]).toEqual({
      id: "m1",
      role: "reasoning",
      content: "[reasoning: 25 characters]",
      encryptedValue: "[redacted: 28 bytes]",
    });
    expect(out.events[3].delta).toBe("[reasoning: 21 characters]");
    expect(r.stdout).not.toContain(SECRET_VALUE);
    expect(r.stdout).not.toContain(SECRET_THOUGHT);

    const shown = JSON.parse(
      (await check(["check", file("valid-json.jsonl", jsonl(valid)), "--json", "--show-values"])).stdout,
    );
    expect(shown.events[7].encryptedValue).toBe(SECRET_VALUE);
    expect(shown.history.messages[0].encryptedValue).toBe(SECRET_VALUE);
    expect(shown.history.messages[0].content).toBe("[reasoning: 25 characters]");
    const reasoning = JSON.parse(
      (await check(["check", file("valid-json.jsonl", jsonl(valid)), "--json", "--show-reasoning"])).stdout,
    );
    expect(reasoning.history.messages[0]).toEqual({
      id: "m1",
      role: "reasoning",
      content: `${SECRET_THOUGHT} — 😀`,
      encryptedValue: "[redacted: 28 bytes]",
    });
  });

  it("R-REASON-9 --json on a violation: outcome failed and error { code, rule, eventIndex, line, eventType, ids, message }, exit 1", async () => {
    const r = await check(["check", file("orphan-json.jsonl", jsonl(orphan)), "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.outcome).toBe("failed");
    expect(out.error).toEqual({
      code: "ORPHAN_CONTENT",
      rule: "R-REASON-9",
      eventIndex: 3,
      line: 4,
      eventType: "REASONING_MESSAGE_CONTENT",
      synthesizedType: null,
      ids: ["ghost"],
      message: expect.stringContaining("ORPHAN_CONTENT (R-REASON-9) at event #3 REASONING_MESSAGE_CONTENT"),
      explanation: {
        rule: "R-REASON-9",
        text: "content names an item nothing opened; a consumer must not invent the item",
      },
    });
    expect(out.history.messages).toEqual([{ id: "m1", role: "reasoning", content: "" }]);
  });

  it("D-TRUNC a recording that stops mid-run: exit 1, reported as truncated with what arrived", async () => {
    const r = await check(["check", file("cut.jsonl", jsonl(valid.slice(0, 4))), "--history"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("— truncated");
    expect(r.stdout).toContain("RUN_TRUNCATED (D-TRUNC)");
    expect(r.stdout).toContain(`History: 1 message`);
    expect(r.stdout).toContain('incomplete: message "m1" (truncated)');
    expect(r.stdout).toContain("✗ truncated: 1 run");
  });

  it("R-DEP-2 a JSON array of a legacy THINKING_* stream is upcast: reasoning message and warnings", async () => {
    const legacy = [
      ev.runStarted(),
      ev.thinkingStart(),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("abc"),
      ev.thinkingTextMessageEnd(),
      ev.thinkingEnd(),
      ev.runFinished(),
    ];
    const r = await check(["check", file("legacy.json", JSON.stringify(legacy, null, 2))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("(JSON array, 7 events)");
    expect(r.stdout).toMatch(/reasoning messages\s+1 {2}"[^"]+" 3 characters/);
    expect(r.stdout).toMatch(/warnings\s+5/);
    expect(r.stdout).toContain("THINKING_UPCAST");
  });

  it("R-PROC-19 a conformance fixture file (an object with a `stream` array) is read as one JSON document", async () => {
    const fixture = { name: "x", stream: valid.slice(0, 2).concat([ev.reasoningEnd("s1"), ev.runFinished("r1")]) };
    const r = await check(["check", file("fixture.json", JSON.stringify(fixture, null, 2))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("(JSON document, 4 events)");
  });

  it("R-TRANS-4 SSE with comments, other fields, CRLF and multi-line data is read frame by frame", async () => {
    const text =
      ": keep-alive\r\nevent: message\r\nid: 1\r\ndata: " +
      JSON.stringify(valid[0]) +
      '\r\n\r\ndata: {"type":"REASONING_START",\r\ndata: "messageId":"s1"}\r\n\r\n' +
      `data: ${JSON.stringify(ev.reasoningEnd("s1"))}\n\ndata: ${JSON.stringify(ev.runFinished("r1"))}`;
    const r = await check(["check", "-"], text);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("stdin (SSE, 4 events)");
    expect(r.stdout).toMatch(/spans\s+1 {2}"s1"/);
  });

  it("D-WARN a progress line is printed while a long recording is read (stderr, stdout stays clean)", async () => {
    const many = [ev.runStarted(), ev.reasoningMessageStart("m1")];
    for (let i = 0; i < 210_000; i++) many.push(ev.reasoningMessageContent("m1", "x"));
    many.push(ev.reasoningMessageEnd("m1"), ev.runFinished());
    const path = file("long.jsonl", jsonl(many));
    const r = await check(["check", path, "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("agui-reasoning: 100,000 events read…\nagui-reasoning: 200,000 events read…\n");
    expect(JSON.parse(r.stdout).events).toHaveLength(210_004);
    const medium = file(
      "medium.jsonl",
      jsonl([...many.slice(0, 30_000), ev.reasoningMessageEnd("m1"), ev.runFinished()]),
    );
    const tty = await check(["check", medium], "", true);
    // eslint-disable-next-line no-control-regex -- the progress line's carriage return and ANSI erase-line sequence
    expect(tty.stderr).toMatch(/^\r\x1b\[Kagui-reasoning: [\d,]+ events read \([\d.]+ MB\)…/);
    expect(tty.stderr.endsWith("\r\x1b[K")).toBe(true);
    expect((await check(["check", medium, "--no-progress"], "", true)).stderr).toBe("");
  });

  it("R-PROC-4 unreadable input and usage errors exit 2 with one clear line", async () => {
    expect(await check(["check", join(dir, "missing.jsonl")])).toEqual({
      code: 2,
      stdout: "",
      stderr: `agui-reasoning: ${join(dir, "missing.jsonl")}: no such file\n`,
    });
    const notEvents = await check(["check", "-"], "hello world\n");
    expect(notEvents.code).toBe(2);
    expect(notEvents.stderr).toContain("unrecognised input");
    const usage = await check(["check"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("nothing to check");
    expect(usage.stderr).toContain("Usage:");
    expect((await check(["check", "a.jsonl", "--url", "http://x"])).code).toBe(2);
    expect((await check(["lint", "a.jsonl"])).code).toBe(2);
    const help = await check(["--help"]);
    expect([help.code, help.stdout.startsWith("Usage:")]).toEqual([0, true]);
  });

  describe("--url: a live agent through a real HttpAgent", () => {
    let server: AgentServer;
    beforeAll(async () => {
      server = await startAgentServer((request) => ({
        events: request.index === 0 ? valid : orphan,
      }));
    });
    afterAll(() => server.close());

    it("R-REASON-17 reads the live stream, POSTs the --input run input, and reports like a file", async () => {
      const input = file(
        "input.json",
        JSON.stringify({ threadId: "t-live", messages: [{ id: "u1", role: "user", content: "hi" }] }),
      );
      const r = await check(["check", "--url", server.url, "--input", input]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`agui-reasoning check: ${server.url} (SSE over HTTP, 11 events)`);
      expect(r.stdout).toMatch(/encrypted values\s+1 {2}message "m1" 28 bytes/);
      const body = (await server.request(0)).json as { threadId: string; runId: string; messages: unknown[] };
      expect(body.threadId).toBe("t-live");
      expect(typeof body.runId).toBe("string");
      expect(body.messages).toEqual([{ id: "u1", role: "user", content: "hi" }]);
    });

    it("R-REASON-9 a violating live stream exits 1; an unreachable agent exits 2", async () => {
      expect((await check(["check", "--url", server.url])).code).toBe(1);
      const down = await check(["check", "--url", "http://127.0.0.1:9/agent"]);
      expect(down.code).toBe(2);
      expect(down.stderr).toContain("could not read the stream from http://127.0.0.1:9/agent");
    });
  });
});
