/**
 * `agui-reasoning check` against what a producer's engineer meets in CI (issue 22, findings 1–11):
 * connections that break after the reply started, recordings cut mid-event, secrets assembled from
 * several deltas, terminal escapes in ids, bytes that are not UTF-8, a bad `--input`, characters
 * split across deltas, SSE line endings and fields per WHATWG, the protobuf transport, and ids shared
 * by a span and a message.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { encode } from "@ag-ui/proto";
import type { BaseEvent } from "@ag-ui/core";
import { ev } from "../../src/testing/builders";
import { readRecording } from "../../src/cli/read-recording";
import { LineSplitter } from "../../src/cli/line-splitter";
import { USAGE } from "../../src/cli/args";
import { check, jsonl, useTempFiles } from "./cli-support";

const ROOT = resolve(__dirname, "../..");
const file = useTempFiles("agui-cli-robust-");
const sse = (events: readonly unknown[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

/** Runs the real command in a child process (an uncaught error there is a stack trace and exit 1). */
function spawnCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe("finding 1: the connection breaks after the reply started (R-TRANS-2)", () => {
  const open = sse([ev.runStarted("r1"), ev.reasoningStart("s1")]);
  const whole = sse([ev.runStarted("r1"), ev.reasoningStart("s1"), ev.reasoningEnd("s1"), ev.runFinished("r1")]);
  // The start of a frame whose rest never comes (its text is a secret: never shown).
  const cutEvent = 'data: {"type":"REASONING_MESSAGE_CONTENT","messageId":"m1","delta":"secret thou';
  const head = (framing: string): string => `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n${framing}\r\n\r\n`;
  const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
  /** How each misbehaving server answers, on the raw socket. */
  const modes: Record<string, (socket: Socket) => void> = {
    "a reset mid-stream": (s) => {
      s.write(head("transfer-encoding: chunked") + chunk(open));
      setTimeout(() => s.resetAndDestroy(), 30);
    },
    "broken chunked encoding": (s) => {
      s.write(`${head("transfer-encoding: chunked") + chunk(open)}ZZ\r\n`);
      setTimeout(() => s.end(), 30);
    },
    "a body shorter than its content-length": (s) => {
      s.write(head("content-length: 9999") + open);
      setTimeout(() => s.end(), 30);
    },
    "a complete valid run, then a reset": (s) => {
      s.write(head("transfer-encoding: chunked") + chunk(whole));
      setTimeout(() => s.resetAndDestroy(), 30);
    },
    // Cut inside an event (SSE dispatches an event at its blank line, WHATWG: an unfinished one never).
    "a reset inside an event": (s) => {
      s.write(head("transfer-encoding: chunked") + chunk(open + cutEvent));
      setTimeout(() => s.resetAndDestroy(), 30);
    },
    "a clean end inside an event": (s) => {
      s.write(head("transfer-encoding: chunked") + chunk(open + cutEvent) + "0\r\n\r\n");
      setTimeout(() => s.end(), 30);
    },
    "a whole last event without its blank line": (s) => {
      s.write(head("transfer-encoding: chunked") + chunk(whole.trimEnd()) + "0\r\n\r\n");
      setTimeout(() => s.end(), 30);
    },
  };
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", (request: Buffer) => {
        const mode = /^POST \/([a-z-]+)/.exec(request.toString())![1]!;
        const name = Object.keys(modes).find((m) => m.replace(/[^a-z]+/g, "-") === mode)!;
        modes[name]!(socket);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const path = (mode: string): string => `${url}/${mode.replace(/[^a-z]+/g, "-")}`;

  it.each(Object.keys(modes).slice(0, 3))(
    "R-TRANS-2 D-TRUNC: %s is a truncated run — RUN_TRUNCATED, CONNECTION_BROKEN, exit 1, no stack trace",
    async (mode) => {
      const r = await spawnCli(["check", "--url", path(mode), "--no-progress"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("✗ Truncated at event #2 <end of stream>: RUN_TRUNCATED (D-TRUNC)");
      expect(r.stdout).toMatch(
        /\[agui-reasoning\] CONNECTION_BROKEN \(R-TRANS-2\) at event #2 <end of stream>: the connection broke after 2 events \(terminated/,
      );
      expect(r.stdout).toContain("✗ truncated: 1 run, 1 warning (exit 1)");
      const json = JSON.parse((await spawnCli(["check", "--url", path(mode), "--json"])).stdout);
      expect(json.warnings).toEqual([
        expect.objectContaining({ code: "CONNECTION_BROKEN", rule: "R-TRANS-2", lossy: true }),
      ]);
    },
  );

  it.each(["a reset inside an event", "a clean end inside an event"])(
    "R-TRANS-2 D-TRUNC D-REDACT: %s is a truncated run, as a recording cut there is — not an event that is not JSON",
    async (mode) => {
      const r = await spawnCli(["check", "--url", path(mode), "--no-progress"]);
      expect([r.code, r.stderr]).toEqual([1, ""]);
      expect(r.stdout).toContain("✗ Truncated at event #2 <end of stream>: RUN_TRUNCATED (D-TRUNC)");
      expect(r.stdout).toMatch(
        new RegExp(
          String.raw`CONNECTION_BROKEN \(R-TRANS-2\) at event #2 <end of stream>: the connection broke after 2 events \((terminated.*|the reply ended inside an event); ` +
            `an unfinished event of ${Buffer.byteLength(cutEvent)} bytes dropped\\)`,
        ),
      );
      expect(r.stdout).not.toContain("not valid JSON");
      expect(r.stdout).not.toContain("secret");
    },
  );

  it("R-TRANS-4: a whole last event without its blank line is read (exit 0), as in a recording", async () => {
    const r = await spawnCli(["check", "--url", path("a whole last event without its blank line"), "--no-progress"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain("✓ valid: 1 run");
    expect(r.stdout).not.toContain("CONNECTION_BROKEN");
  });

  it("R-TRANS-2: a complete valid run followed by a reset is valid (exit 0) and says the connection broke", async () => {
    const r = await spawnCli(["check", "--url", path("a complete valid run, then a reset"), "--no-progress"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toContain('Run 1 · runId "r1" · thread "t1" — finished');
    expect(r.stdout).toContain("CONNECTION_BROKEN (R-TRANS-2)");
    expect(r.stdout).toContain("✓ valid: 1 run, 1 warning");
  });
});

describe("finding 2: a recording cut inside its last event is a truncated run, not bad JSON", () => {
  const events = [ev.runStarted("r1"), ev.reasoningStart("s1"), ev.reasoningEnd("s1")];
  it.each([
    ["an SSE frame", "cut.sse", `${sse(events)}data: {"type":"RUN_FINI`, "SSE frame (line 7)"],
    [
      "an SSE frame of several data lines",
      "cut2.sse",
      `${sse(events)}data: {"type":\ndata: "RUN_`,
      "SSE frame (line 7)",
    ],
    ["a JSON Lines line", "cut.jsonl", `${jsonl(events)}{"type":"RUN_FINI`, "line (line 4)"],
  ])(
    "R-TRANS-2 D-TRUNC: the recording ends inside %s: RUN_TRUNCATED, exit 1, RECORDING_CUT names it",
    async (_l, name, text, where) => {
      const r = await check(["check", file(name, text)]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("RUN_TRUNCATED (D-TRUNC)");
      expect(r.stdout).toContain(
        `RECORDING_CUT (R-TRANS-2) at event #3 <end of stream>: the recording ends inside its last ${where}`,
      );
      expect(r.stdout).not.toContain("not valid JSON");
      const json = JSON.parse((await check(["check", file(name, text), "--json"])).stdout);
      expect(json.warnings.at(-1)).toMatchObject({ code: "RECORDING_CUT", rule: "R-TRANS-2", lossy: true });
    },
  );

  it("R-TRANS-4: a last SSE frame without its blank line that is complete JSON is read; bad JSON mid-file stays exit 2", async () => {
    const done = `${sse(events)}data: ${JSON.stringify(ev.runFinished("r1"))}`;
    expect((await check(["check", file("no-blank.sse", done)])).code).toBe(0);
    const bad = await check(["check", file("bad.sse", `${sse(events)}data: {nope\n\n${sse([ev.runFinished("r1")])}`)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("SSE frame at line 7: not valid JSON");
  });
});

describe("finding 3: reasoning text assembled from several deltas is redacted wherever it recurs", () => {
  const parts = ["The user wants ", "the weather ", "in Oslo, so I will call the tool."];
  const assembled = parts.join("");
  const short = ["ab", "cd"];
  const stream = [
    ev.runStarted("r1"),
    ev.reasoningStart("s1"),
    ev.reasoningMessageStart("m1"),
    ...parts.map((p) => ev.reasoningMessageContent("m1", p)),
    ev.reasoningMessageEnd("m1"),
    ev.reasoningChunk("m2", short[0]),
    ev.reasoningChunk(undefined, short[1]),
    ev.reasoningEnd("s1"),
    ev.raw({ output: assembled, thinking: short.join("") }, { rawEvent: { text: `<think>${assembled}</think>` } }),
    ev.stateSnapshot({ lastThought: assembled, short: short.join("") }),
    ev.runFinished("r1"),
  ];

  it("R-REASON-25 D-REDACT: --json prints neither message's text in RAW, STATE_SNAPSHOT or rawEvent copies", async () => {
    const r = await check(["check", file("assembled.jsonl", jsonl(stream)), "--json"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain(assembled);
    expect(r.stdout).not.toContain("abcd");
    const json = JSON.parse(r.stdout);
    const raw = json.events.find((e: { type: string }) => e.type === "RAW");
    expect(raw.event).toEqual({ output: "[reasoning: 60 characters]", thinking: "[reasoning: 4 characters]" });
    expect(raw.rawEvent.text).toBe("<think>[reasoning: 60 characters]</think>");
    const state = json.events.find((e: { type: string }) => e.type === "STATE_SNAPSHOT");
    expect(state.snapshot).toEqual({ lastThought: "[reasoning: 60 characters]", short: "[reasoning: 4 characters]" });
    const shown = await check(["check", file("assembled.jsonl", jsonl(stream)), "--json", "--show-reasoning"]);
    expect(shown.stdout).toContain(assembled);
  });

  it("R-REASON-25: a truncated message's assembled text is redacted too", async () => {
    const cut = [
      ev.runStarted("r1"),
      ev.reasoningMessageStart("m1"),
      ...parts.map((p) => ev.reasoningMessageContent("m1", p)),
    ];
    const r = await check([
      "check",
      file("assembled-cut.jsonl", jsonl([...cut, ev.custom("echo", assembled)])),
      "--json",
    ]);
    expect(r.code).toBe(1);
    const custom = JSON.parse(r.stdout).events.find((e: { type: string }) => e.type === "CUSTOM");
    expect(custom.value).toBe("[reasoning: 60 characters]");
  });
});

describe("finding 4: line reading is linear in the line's length", () => {
  it("R-TRANS-4: LineSplitter gives the lines of any chunking, CRLF split across chunks included", () => {
    const text = "a\r\nbb\n\nccc\rd\r\r\ne";
    const reference = text.split(/\r\n|\r|\n/);
    for (let size = 1; size <= text.length; size++) {
      for (const cr of [true, false]) {
        const got: string[] = [];
        const splitter = new LineSplitter(cr);
        for (let i = 0; i < text.length; i += size) splitter.push(text.slice(i, i + size), (l) => void got.push(l));
        const last = splitter.end();
        if (last !== undefined) got.push(last);
        expect(got).toEqual(cr ? reference : text.split("\n"));
      }
    }
  });

  it("R-PROC-19: a 4 MB single JSON Lines line in 64 KB chunks is one event, its first line parsed once", async () => {
    const big = JSON.stringify(ev.reasoningMessageContent("m1", "x".repeat(4 << 20)));
    const chunks = (async function* () {
      for (let i = 0; i < big.length; i += 65536) yield Buffer.from(big.slice(i, i + 65536));
    })();
    const parse = jest.spyOn(JSON, "parse");
    const events: unknown[] = [];
    await new Promise<void>((done, fail) =>
      readRecording(chunks).events$.subscribe({ next: (e) => events.push(e), error: fail, complete: done }),
    );
    expect(parse.mock.calls.filter(([t]) => typeof t === "string" && t.length > 1000)).toHaveLength(1);
    parse.mockRestore();
    expect((events[0] as { delta: string }).delta).toHaveLength(4 << 20);
  });
});

describe("finding 5: control and bidi characters from the recording are shown escaped", () => {
  const HIDE = "\u001b[8m";
  const BIDI = "\u202e";
  const stream = [
    ev.runStarted(`run${HIDE}`),
    ev.reasoningMessageStart(`m${BIDI}1`),
    ev.reasoningMessageEnd(`m${BIDI}1`),
    ev.reasoningMessageContent(`ghost${HIDE}\u009b`, "x"),
  ];
  it.each([["human"], ["github"], ["junit"]])(
    "D-REDACT: --format %s prints no raw ESC, C1 or bidi control, and the verdict is visible",
    async (format) => {
      const r = await check(["check", file(`escape-${format}.jsonl`, jsonl(stream)), "--format", format]);
      expect(r.code).toBe(1);
      for (const c of ["\u001b", "\u009b", "\u202e"]) expect(r.stdout).not.toContain(c);
      expect(r.stdout).toContain("ghost\\u001b[8m\\u009b");
      if (format === "human") {
        expect(r.stdout).toContain('"m\\u202e1"');
        expect(r.stdout).toContain("✗ violation: 1 run, 0 warnings (exit 1)");
      }
    },
  );
  it("D-REDACT: an error line on stderr escapes them too", async () => {
    const r = await check(["check", file("bad\u001b]0;x\u0007.jsonl", "{nope\n")]);
    expect(r.code).toBe(2);
    for (const c of ["\u001b", "\u0007"]) expect(r.stderr).not.toContain(c);
    expect(r.stderr).toContain("bad\\u001b]0;x\\u0007.jsonl");
  });
});

describe("finding 6: input that is not UTF-8 is unusable", () => {
  it("R-PROC-4: invalid UTF-8 exits 2 naming the byte offset; a character split across chunks is fine", async () => {
    const good = Buffer.from(jsonl([ev.runStarted("r1"), ev.runFinished("r1")]));
    // Inside the threadId: "t\xc3(1" (C3 must be followed by a continuation byte).
    const at = good.indexOf('"t1"') + 2;
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xc3, 0x28]), good.subarray(at)]);
    const path = file("bad-utf8.jsonl", "");
    writeFileSync(path, bad);
    const broken = await check(["check", path]);
    expect(broken).toEqual({
      code: 2,
      stdout: "",
      stderr: `agui-reasoning: ${path}: not valid UTF-8 at byte ${at}: the input must be UTF-8 text\n`,
    });
    // A malformed start left at the end (ED A0 would be a surrogate) is invalid, not a cut.
    const malformedEnd = file("malformed-end.jsonl", "");
    writeFileSync(malformedEnd, Buffer.concat([good, Buffer.from([0xed, 0xa0])]));
    expect((await check(["check", malformedEnd])).stderr).toContain(`not valid UTF-8 at byte ${good.length}`);
    const emoji = Buffer.from(jsonl([ev.runStarted("r😀"), ev.runFinished("r😀")]));
    const split = emoji.indexOf(0xf0) + 2;
    const chunks = (async function* () {
      yield emoji.subarray(0, split);
      yield emoji.subarray(split);
    })();
    const events: unknown[] = [];
    await new Promise<void>((done, fail) =>
      readRecording(chunks).events$.subscribe({ next: (e) => events.push(e), error: fail, complete: done }),
    );
    expect(events).toEqual([ev.runStarted("r😀"), ev.runFinished("r😀")]);
  });
});

describe("R-TRANS-2: a recording cut inside a multi-byte character is cut, not invalid UTF-8", () => {
  const started = jsonl([ev.runStarted("r1"), ev.textStart("a1")]);
  const cutLine = Buffer.from(`${JSON.stringify(ev.textContent("a1", "caf\u00e9 \u{1F600}"))}\n`);
  // `head -c` at a byte count: inside the emoji's four bytes.
  const insideEmoji = cutLine.subarray(0, cutLine.indexOf(0xf0) + 2);
  const sse = (events: readonly unknown[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
  it.each([
    ["inside the last JSON line", Buffer.concat([Buffer.from(started), insideEmoji]), "line 3", 2],
    ["at the start of a line", Buffer.concat([Buffer.from(started), Buffer.from([0xf0, 0x9f])]), "line 3", 2],
    [
      "inside an SSE frame's data",
      Buffer.concat([Buffer.from(sse([ev.runStarted("r1"), ev.textStart("a1")])), Buffer.from("data: "), insideEmoji]),
      "SSE frame (line 5)",
      2,
    ],
    [
      "at the start of an SSE line",
      Buffer.concat([Buffer.from(sse([ev.runStarted("r1"), ev.textStart("a1")])), Buffer.from([0xe2, 0x82])]),
      "SSE frame (line 5)",
      2,
    ],
  ])("%s: RECORDING_CUT where it was cut, the run truncated (exit 1)", async (_where, bytes, place, events) => {
    const path = file("cut-inside-character.txt", "");
    writeFileSync(path, bytes);
    const r = await check(["check", path, "--json"]);
    expect([r.code, r.stderr]).toEqual([1, ""]);
    const report = JSON.parse(r.stdout) as { warnings: Array<{ code: string; message: string; eventIndex: number }> };
    expect(report.warnings).toEqual([
      expect.objectContaining({ code: "RECORDING_CUT", rule: "R-TRANS-2", lossy: true, eventIndex: events }),
    ]);
    expect(report.warnings[0]!.message).toContain(place);
    expect(report).toMatchObject({ outcome: "failed", error: { code: "RUN_TRUNCATED" } });
  });
});

describe("finding 7: --input is validated as a RunAgentInput", () => {
  it.each([
    ['{"messages": "hello"}', /--input .*: not a RunAgentInput: messages: expected array, received string$/],
    ['{"messages": [{"id": 1, "role": "user", "content": "x"}]}', /--input .*: not a RunAgentInput: messages\[0\]/],
    ['{"threadId": 7}', /--input .*: not a RunAgentInput: threadId: expected string, received number$/],
    ["[1]", /--input .*: must be a JSON object \(a RunAgentInput\)$/],
  ])("R-PROC-4: %s gives one clear line, exit 2, no internal error", async (text, message) => {
    const r = await check(["check", "--url", "http://127.0.0.1:9/agent", "--input", file("input.json", text)]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(message);
    expect(r.stderr).not.toContain("internal error");
  });
});

describe("finding 8: characters are counted as code points across deltas", () => {
  it("R-REASON-25: a😀b with the emoji split across two deltas is 3 characters", async () => {
    const stream = [
      ev.runStarted("r1"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "a\ud83d"),
      ev.reasoningMessageContent("m1", "\ude00b"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished("r1"),
    ];
    const r = await check(["check", file("split-emoji.jsonl", jsonl(stream))]);
    expect(r.stdout).toContain('"m1" 3 characters');
  });
});

describe("finding 9: SSE is read per the WHATWG standard", () => {
  const events = [ev.runStarted("r1"), ev.reasoningStart("s1"), ev.reasoningEnd("s1"), ev.runFinished("r1")];
  it("R-TRANS-4: lines ending in CR alone are lines", async () => {
    const text = events.map((e) => `data: ${JSON.stringify(e)}\r\r`).join("");
    const r = await check(["check", file("cr.sse", text)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("(SSE, 4 events)");
    expect(r.stdout).toContain("✓ valid: 1 run, 0 warnings");
  });
  it("R-TRANS-4: a `data` line without a colon is the field data with an empty value", async () => {
    const [first, ...rest] = events;
    const json = JSON.stringify(first);
    // `data` alone adds an empty line to the frame: the JSON then holds a line break between tokens.
    const text = `data: ${json.slice(0, 1)}\ndata\ndata: ${json.slice(1)}\n\ndata\n\n${sse(rest)}`;
    const r = await check(["check", file("nocolon.sse", text)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("(SSE, 4 events)");
  });
});

describe("finding 10: the protobuf transport", () => {
  const events = [ev.runStarted("r1"), ev.reasoningStart("s1"), ev.reasoningEnd("s1"), ev.runFinished("r1")];
  const accepted: IncomingHttpHeaders[] = [];
  const server = createHttpServer((req, res) => {
    accepted.push(req.headers);
    req.resume();
    req.on("end", () => {
      if (req.headers.accept === "application/vnd.ag-ui.event+proto") {
        res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto" });
        for (const e of events) {
          const bytes = encode(e as unknown as BaseEvent);
          const frame = Buffer.alloc(4 + bytes.length);
          frame.writeUInt32BE(bytes.length, 0);
          Buffer.from(bytes).copy(frame, 4);
          res.write(frame);
        }
      } else {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(sse(events));
      }
      res.end();
    });
  });
  let url = "";
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("R-TRANS-5: --accept proto asks for protobuf; the report names the transport it read", async () => {
    const proto = await check(["check", "--url", url, "--accept", "proto"]);
    expect(proto.code).toBe(0);
    expect(proto.stdout).toContain(`agui-reasoning check: ${url} (protobuf over HTTP, 4 events)`);
    expect(accepted.at(-1)!.accept).toBe("application/vnd.ag-ui.event+proto");
    const json = JSON.parse((await check(["check", "--url", url, "--accept", "proto", "--json"])).stdout);
    expect(json.input.format).toBe("protobuf over HTTP");
    const plain = await check(["check", "--url", url]);
    expect(plain.stdout).toContain(`agui-reasoning check: ${url} (SSE over HTTP, 4 events)`);
    expect(accepted.at(-1)!.accept).toBe("text/event-stream");
  });

  it("R-PROC-4: the usage names both media types and --accept; --accept needs --url and sse or proto", async () => {
    expect(USAGE).toContain("application/vnd.ag-ui.event+proto");
    expect(USAGE).toContain("--accept <t>");
    expect((await check(["check", "x.jsonl", "--accept", "proto"])).stderr).toContain("--accept only goes with --url");
    expect((await check(["check", "--url", url, "--accept", "json"])).stderr).toContain(
      "--accept must be sse or proto",
    );
  });
});

describe("finding 11: an id a span and a message share", () => {
  it("R-REASON-12 D-TRUNC: RUN_TRUNCATED lists it once in ids, and once per family in the message", async () => {
    const stream = [ev.runStarted("r1"), ev.reasoningStart("x"), ev.reasoningMessageStart("x")];
    const json = JSON.parse((await check(["check", file("shared-id.jsonl", jsonl(stream)), "--json"])).stdout);
    expect(json.error.code).toBe("RUN_TRUNCATED");
    expect(json.error.ids).toEqual(["x"]);
    expect(json.error.message).toContain(`(2 open items: reasoning span 'x', reasoning message 'x')`);
  });
});
