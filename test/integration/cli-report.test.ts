/**
 * `agui-reasoning check` as a linter producers trust in CI (issue 14): exit codes for streams that
 * check nothing, replies that are not event streams, explanations chosen by what happened, counts
 * of the whole input and the final history, and the command-line surface (--version, bare
 * invocation, --help).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ev } from "../../src/testing/builders";
import { check, jsonl, useTempFiles } from "./cli-support";
import { runCheck } from "../../src/cli/check";
import { version } from "../../package.json";
import { unknownTypeWarning } from "../../src/schema/enforce-warnings";

const file = useTempFiles("agui-cli-report-");
const VALUE = "gAAAAA-report-SECRET-VALUE==";
const THOUGHT = "report-SECRET-THOUGHT";

describe("streams that check nothing", () => {
  it.each([
    ["an empty file", ""],
    ["blank lines", "\n\n  \n"],
    ["an empty JSON array", "[]"],
  ])("R-RUN-1 NO_RUN: %s fails with exit 1 and its own code, unless --allow-empty", async (_label, text) => {
    const path = file(`empty-${text.length}.json`, text);
    const r = await check(["check", path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ No run: NO_RUN (R-RUN-1)");
    expect(r.stdout).toContain("✗ no run: 0 runs, 0 warnings (exit 1)");
    const json = JSON.parse((await check(["check", path, "--json"])).stdout);
    expect([json.outcome, json.error.code, json.error.eventIndex]).toEqual(["failed", "NO_RUN", null]);
    const allowed = await check(["check", path, "--allow-empty"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain("✓ valid: 0 runs, 0 warnings");
  });

  it("R-RUN-1 NO_RUN: a stream of events none of which opens a run fails on its first event, not as NO_RUN", async () => {
    const r = await check(["check", file("no-start.jsonl", jsonl([ev.reasoningStart("s1")]))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("EVENT_OUTSIDE_RUN");
  });
});

describe("--url replies that are not event streams (exit 2, never their content)", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/html") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><html><body>${THOUGHT}</body></html>`);
      } else if (req.url === "/json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ secret: THOUGHT }));
      } else if (req.url === "/empty") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end();
      } else if (req.url === "/crlf" || req.url === "/cr" || req.url === "/crlf-split") {
        const ending = req.url === "/cr" ? "\r" : "\r\n";
        const run = [ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", THOUGHT)];
        const frames = run.map((e) => `data: ${JSON.stringify(e)}${ending}${ending}`).join("");
        res.writeHead(200, { "content-type": "text/event-stream" });
        if (req.url !== "/crlf-split") return void res.end(frames);
        // The first line's CR ends one write and its LF begins the next.
        const cr = frames.indexOf("\r") + 1;
        res.flushHeaders();
        res.write(frames.slice(0, cr), () => setTimeout(() => res.end(frames.slice(cr)), 20));
      } else if (req.url === "/proto-parameters") {
        res.writeHead(200, { "content-type": "application/vnd.ag-ui.event+proto; charset=binary" });
        res.end(Buffer.from([0, 0, 0, 2, 8, 1]));
      } else if (req.url === "/sse-as-text" || req.url === "/sse-comment-as-text") {
        // SSE sent under another content type: a field line without a value, or a comment, first.
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(req.url === "/sse-as-text" ? `data\ndata: ${THOUGHT}\n\n` : `: keep-alive\n\ndata: ${THOUGHT}\n\n`);
      } else if (req.url === "/teapot") {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(THOUGHT);
      } else {
        res.writeHead(404, { "content-type": "text/html" });
        res.end(`<error>${THOUGHT}</error>`);
      }
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it.each([
    [
      "/html",
      'the reply is not an event stream (text/event-stream or application/vnd.ag-ui.event+proto): HTTP 200 OK, content type "text/html; charset=utf-8", a body of ',
      "that looks like an HTML page",
    ],
    [
      "/json",
      'the reply is not an event stream (text/event-stream or application/vnd.ag-ui.event+proto): HTTP 200 OK, content type "application/json", a body of ',
      "that looks like JSON",
    ],
    ["/missing", 'HTTP 404 Not Found, content type "text/html", a body of ', "that looks like markup (HTML or XML)"],
    ["/teapot", 'HTTP 500 Internal Server Error, content type "text/plain", a body of ', "that looks like plain text"],
    ...["/sse-as-text", "/sse-comment-as-text"].map((path) => [
      path,
      'the reply is not an event stream (text/event-stream or application/vnd.ag-ui.event+proto): HTTP 200 OK, content type "text/plain", a body of ',
      "that looks like SSE frames",
    ]),
  ])("R-TRANS-4 %s: exit 2 with status, reason, content type and the body's shape", async (path, start, shape) => {
    const r = await check(["check", "--url", `${base}${path}`, "--no-progress"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(start);
    expect(r.stderr).toContain(shape);
    expect(r.stderr).not.toContain(THOUGHT);
    expect(r.stderr.split("\n")).toHaveLength(2);
  });

  it.each([
    ["/crlf", 'CRLF ("\\r\\n")'],
    ["/crlf-split", 'CRLF ("\\r\\n")'],
    ["/cr", 'CR ("\\r" alone)'],
  ])(
    "R-TRANS-4 %s: SSE lines the client does not split are named as the cause, exit 2, no content",
    async (path, ending) => {
      const r = await check(["check", "--url", `${base}${path}`, "--no-progress"]);
      expect([r.code, r.stdout]).toEqual([2, ""]);
      expect(r.stderr).toBe(
        `agui-reasoning: ${base}${path}: the stream ends its lines with ${ending}: SSE allows it, but @ag-ui/client 1.0 ` +
          'separates events only at "\\n\\n", so an HttpAgent reads its events run together as one that is not JSON; ' +
          'end the lines with "\\n"\n',
      );
    },
  );

  it("R-TRANS-5 a protobuf reply with content-type parameters: the client reads it as SSE, which the message says", async () => {
    const r = await check(["check", "--url", `${base}/proto-parameters`, "--no-progress", "--accept", "proto"]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toBe(
      `agui-reasoning: ${base}/proto-parameters: the reply holds no events: HTTP 200 OK, content type ` +
        '"application/vnd.ag-ui.event+proto; charset=binary": @ag-ui/client 1.0 reads protobuf only when the content ' +
        'type is exactly "application/vnd.ag-ui.event+proto", and read this reply as SSE\n',
    );
  });

  it("R-TRANS-4 an empty event stream is an unusable reply, exit 2, even with --allow-empty", async () => {
    for (const extra of [[], ["--allow-empty"]]) {
      const r = await check(["check", "--url", `${base}/empty`, "--no-progress", ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `agui-reasoning: ${base}/empty: the reply holds no events: HTTP 200 OK, content type "text/event-stream"\n`,
      );
    }
  });
});

describe("explanations chosen by what happened", () => {
  it("R-STREAM-9 #49: explicit START then a CHUNK for the same id — the chunk's line and type, the mixing explained, no misleading advice", async () => {
    const events = [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", THOUGHT),
      ev.reasoningChunk("m1", THOUGHT),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ];
    const r = await check(["check", file("mix49.jsonl", jsonl(events))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "✗ First violation at event #3 (line 4) REASONING_MESSAGE_CHUNK: DUPLICATE_OPEN (R-REASON-11)",
    );
    expect(r.stdout).toContain("judged as the REASONING_MESSAGE_START this REASONING_MESSAGE_CHUNK implies");
    expect(r.stdout).toContain("the chunk and explicit forms do not mix within one item (edge case #49)");
    expect(r.stdout).toContain("(R-STREAM-9).");
    expect(r.stdout).not.toContain("close it with");
    const json = JSON.parse((await check(["check", file("mix49.jsonl", jsonl(events)), "--json"])).stdout);
    expect(json.error).toMatchObject({
      code: "DUPLICATE_OPEN",
      eventIndex: 3,
      line: 4,
      eventType: "REASONING_MESSAGE_CHUNK",
      synthesizedType: "REASONING_MESSAGE_START",
      ids: ["m1"],
      explanation: { rule: "R-STREAM-9" },
    });
  });

  it("R-STREAM-9 #47: a CHUNK-opened message continued by an explicit CONTENT is explained as mixing, not as an orphan", async () => {
    const events = [
      ev.runStarted(),
      ev.reasoningChunk("m1", THOUGHT),
      ev.reasoningMessageContent("m1", THOUGHT),
      ev.runFinished(),
    ];
    const r = await check(["check", file("mix47.jsonl", jsonl(events))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("at event #2 (line 3) REASONING_MESSAGE_CONTENT: ORPHAN_CONTENT");
    expect(r.stdout).toContain("an explicit event continues an item a chunk opened");
    expect(r.stdout).toContain("(edge cases #46, #47)");
  });

  it("R-REASON-9: an orphan CONTENT for an id no chunk named keeps the orphan explanation", async () => {
    const events = [
      ev.runStarted(),
      ev.reasoningChunk("m1", THOUGHT),
      ev.reasoningMessageContent("m2", THOUGHT),
      ev.runFinished(),
    ];
    const r = await check(["check", file("orphan2.jsonl", jsonl(events))]);
    expect(r.stdout).toContain("content names an item nothing opened");
    expect(r.stdout).not.toContain("R-STREAM-9");
  });

  it("D-ROLE-CONFLICT: a parent-less TOOL_CALL_START whose id names a reasoning message is explained as such, not as a reasoning start", async () => {
    const events = [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.toolCallStart("m1"),
      ev.toolCallEnd("m1"),
      ev.runFinished(),
    ];
    const r = await check(["check", file("role.jsonl", jsonl(events))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("at event #3 (line 4) TOOL_CALL_START: ID_ROLE_CONFLICT (D-ROLE-CONFLICT)");
    expect(r.stdout).toContain(
      "a TOOL_CALL_START without parentMessageId is held on an assistant message whose id is its toolCallId",
    );
    expect(r.stdout).not.toContain("a reasoning message start names");
  });

  it("D-TOOL-RESULT-ID: a TOOL_CALL_RESULT whose messageId names a reasoning message completes with DUPLICATE_MESSAGE_ID", async () => {
    const events = [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.toolCallStart("tc1"),
      ev.toolCallEnd("tc1"),
      ev.toolCallResult("m1", "tc1", "ok"),
      ev.runFinished(),
    ];
    const r = await check(["check", file("role.jsonl", jsonl(events))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("DUPLICATE_MESSAGE_ID");
    expect(r.stdout).not.toContain("ID_ROLE_CONFLICT");
  });

  it("D-ROLE-CONFLICT: a reasoning start naming a text message says so", async () => {
    const events = [
      ev.runStarted(),
      ev.textStart("a1"),
      ev.textEnd("a1"),
      ev.reasoningMessageStart("a1"),
      ev.runFinished(),
    ];
    const r = await check(["check", file("role2.jsonl", jsonl(events))]);
    expect(r.stdout).toContain("a reasoning message start names an existing non-reasoning message");
  });

  it("R-PROC-1: an unknown THINKING_* type is not called a retired 0.x shape; a real 0.x type is upcast", async () => {
    const events = [ev.runStarted(), { type: "THINKING_CONTENT", delta: THOUGHT }, ev.runFinished()];
    const r = await check(["check", file("thinking-content.jsonl", jsonl(events))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'dropped an event of type "THINKING_CONTENT", which AG-UI 1.0 does not describe (nor did 0.x',
    );
    expect(r.stdout).not.toContain("upcastThinking must run");
    expect(r.stdout).not.toContain(THOUGHT);
  });
});

describe("the unknown-type warning names 0.x only for 0.x types", () => {
  it.each([
    ["THINKING_START", "(a retired 0.x shape: upcastThinking must run before enforceSchema to translate it)"],
    [
      "THINKING_TEXT_MESSAGE_CONTENT",
      "(a retired 0.x shape: upcastThinking must run before enforceSchema to translate it)",
    ],
    [
      "THINKING_CONTENT",
      "(nor did 0.x: the retired reasoning events are THINKING_START/END and THINKING_TEXT_MESSAGE_START/CONTENT/END)",
    ],
    [
      "THINKING_SIGNATURE",
      "(nor did 0.x: the retired reasoning events are THINKING_START/END and THINKING_TEXT_MESSAGE_START/CONTENT/END)",
    ],
  ])("R-PROC-1 R-DEP-2: %s", (type, hint) => {
    expect(unknownTypeWarning({ type }, { index: 3 }).message).toBe(
      `dropped an event of type ${JSON.stringify(type)}, which AG-UI 1.0 does not describe ${hint}`,
    );
  });

  it("R-PROC-1: another unknown type gets no hint", () => {
    expect(unknownTypeWarning({ type: "VENDOR_THING" }, { index: 0 }).message).toBe(
      'dropped an event of type "VENDOR_THING", which AG-UI 1.0 does not describe',
    );
  });
});

describe("counts", () => {
  it("R-PROC-19: the header counts the file's events, also when the violation comes first", async () => {
    const events = [
      ev.runStarted(),
      ev.reasoningMessageContent("ghost", THOUGHT),
      ev.runFinished(),
      ev.runStarted("r2"),
      ev.runFinished("r2"),
    ];
    const r = await check(["check", file("early.jsonl", jsonl(events))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("(JSON Lines, 5 events)");
    expect(r.stdout).toContain("at event #1 (line 2)");
    expect(
      JSON.parse((await check(["check", file("early.jsonl", jsonl(events)), "--json"])).stdout).input,
    ).toMatchObject({ events: 5, complete: true });
  });

  it("R-PROC-19: a file unreadable past the violation is counted as 'at least' what was read", async () => {
    const text = `${jsonl([ev.runStarted(), ev.reasoningMessageContent("ghost", THOUGHT)])}{"type":\n`;
    const r = await check(["check", file("broken-after.jsonl", text)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("(JSON Lines, at least 2 events)");
  });

  it("R-REASON-19: the summary counts the final history, snapshots included, with singular and plural right", async () => {
    const events = [
      ev.runStarted(),
      ev.messagesSnapshot([
        { id: "u1", role: "user", content: "hi" },
        { id: "m9", role: "reasoning", content: THOUGHT, encryptedValue: VALUE },
        {
          id: "a1",
          role: "assistant",
          content: "x",
          encryptedValue: VALUE,
          toolCalls: [{ id: "tc1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
      ] as never),
      ev.encryptedValue("message", "m9", "v"),
      ev.runFinished(),
    ];
    const r = await check(["check", file("snapshot.jsonl", jsonl(events))]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/encrypted values\s+1 {2}message "m9" 1 byte\n/);
    expect(r.stdout).toContain(
      "History: 3 messages (1 user, 1 reasoning, 1 assistant), 2 encrypted values, 1 tool call, 0 incomplete",
    );
    expect(r.stdout).not.toContain(VALUE);
    const json = JSON.parse((await check(["check", file("snapshot.jsonl", jsonl(events)), "--json"])).stdout);
    expect(json.counts.history).toEqual({
      messages: 3,
      roles: { user: 1, reasoning: 1, assistant: 1 },
      reasoningMessages: 1,
      encryptedValues: 2,
      toolCalls: 1,
      incomplete: 0,
    });
    expect(json.history.messages[1].encryptedValue).toBe("[redacted: 1 byte]");
  });
});

describe("the command line", () => {
  it("R-PROC-4: a bare invocation exits 2 with the usage on stderr", async () => {
    const r = await check([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^agui-reasoning: no command given\n\nUsage:/);
  });

  it("R-PROC-4: --version prints the package's version, exit 0", async () => {
    expect(await check(["--version"])).toEqual({ code: 0, stdout: `agui-reasoning ${version}\n`, stderr: "" });
    expect((await check(["check", "x.jsonl", "--version"])).stdout).toBe(`agui-reasoning ${version}\n`);
  });

  it("R-PROC-4: --help lists every input form and every option, with examples", async () => {
    const r = await check(["--help"]);
    expect(r.code).toBe(0);
    for (const form of [
      "JSON Lines",
      "JSON array",
      '{"events": [...]}',
      '{"stream": [...]}',
      "SSE",
      "stdin",
      "--url",
      "--input",
    ])
      expect(r.stdout).toContain(form);
    for (const option of [
      "--format",
      "human",
      "json",
      "github",
      "junit",
      "--json",
      "--history",
      "--show-values",
      "--show-reasoning",
      "--allow-empty",
      "--no-progress",
      "--version",
      "--help",
    ]) {
      expect(r.stdout).toContain(option);
    }
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout.match(/^ {2}agui-reasoning check /gm)?.length).toBeGreaterThanOrEqual(6);
  });

  it.each([
    [["check", "a.jsonl", "--format", "xml"], "--format must be one of human, json, github, junit"],
    [["check", "a.jsonl", "--json", "--format", "junit"], "one output format at a time"],
    [["check", "a.jsonl", "--format", "github", "--history"], "--history goes with the human report"],
    [["check", "a.jsonl", "--format", "junit", "--history"], "--history goes with the human report"],
    [["check", "a.jsonl", "--format"], "--format needs a value"],
    [["check", "--url", "--json"], "--url needs a value"],
    [["check", "a.jsonl", "--frmat", "json"], "unknown option --frmat"],
    [["check", "a.jsonl", "b.jsonl"], 'one input at a time (got "a.jsonl" and "b.jsonl")'],
    [["check", "a.jsonl", "--url", "http://x"], "give either a file or --url, not both"],
    [["check", "--url", "ftp://x"], '--url needs an http(s) URL, got "ftp://x"'],
    [["check", "a.jsonl", "--input", "in.json"], "--input only goes with --url"],
    [["check", "a.jsonl", "--sarif"], "unknown option --sarif"],
  ])("R-PROC-4: %j is a usage error, exit 2", async (argv, message) => {
    const r = await check(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe("a long report", () => {
  it("D-REDACT: written in batches as it is made (issue 22), it is the text the --history path renders whole, escaped throughout", async () => {
    const runs = 1_500;
    const events = Array.from({ length: runs }, (_, i) => {
      const runId = i === runs - 1 ? "last\u001b[8m" : `r${i}`;
      return [
        ev.runStarted(runId),
        ev.reasoningMessageStart(`m${i}`),
        ev.reasoningMessageContent(`m${i}`, THOUGHT),
        ev.reasoningMessageEnd(`m${i}`),
        ev.runFinished(runId),
      ];
    }).flat();
    const path = file("long.jsonl", jsonl(events));
    const writes: string[] = [];
    const code = await runCheck(["check", path, "--no-progress"], {
      stdout: { write: (t: string) => writes.push(t) },
      stderr: { write: () => true, isTTY: false },
      stdin: (async function* () {})(),
    });
    expect(code).toBe(0);
    expect(writes.length).toBeGreaterThan(1);
    const streamed = writes.join("");
    const whole = (await check(["check", path, "--no-progress", "--history"])).stdout;
    // The --history report is the same but for the history's own lines (a JSON message per line).
    expect(streamed).toBe(whole.replace(/^ {2}\{.*\n/gm, ""));
    expect(streamed.match(/^Run \d+ · /gm)).toHaveLength(runs);
    expect(streamed).toContain(`runId "last\\u001b[8m"`);
    expect(streamed).not.toContain("\u001b");
    expect(streamed).not.toContain(THOUGHT);
    expect(streamed.endsWith(`✓ valid: ${runs.toLocaleString("en-US")} runs, 0 warnings\n`)).toBe(true);
  });
});
