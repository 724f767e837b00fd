/**
 * agui-reasoning/testing's mockAgentServer: a real HTTP AG-UI endpoint on 127.0.0.1, driven here by a
 * real HttpAgent through reasoningPipeline, as an integrator's integration test would; and
 * returnedValues, the server-side check that a request carried the issued values back.
 */
import type { Message } from "@ag-ui/core";
import { toRunInputMessages } from "../../src";
import { ev, mockAgentServer, msg, returnedValues, type MockAgentServer } from "../../src/testing";
import { runInput, runOverHttp } from "../support/http-run";

const VALUE = "gAAAA-opaque+/=\u00e9\u{1F512}";
const TOOL_VALUE = "rs_tool-\u00e9";

/** Turn 1: reasoning with a value, an answer calling a tool whose call carries one too. */
const TURN_1 = [
  ev.runStarted("r1"),
  ev.reasoningMessageStart("m1"),
  ev.reasoningMessageContent("m1", "Let me think"),
  ev.reasoningMessageEnd("m1"),
  ev.encryptedValue("message", "m1", VALUE),
  ev.textChunk("a1", "Calling"),
  ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
  ev.toolCallArgs("tc1", '{"q":"x"}'),
  ev.toolCallEnd("tc1"),
  ev.encryptedValue("tool-call", "tc1", TOOL_VALUE),
  ev.runFinished("r1"),
];
const TURN_2 = [ev.runStarted("r2"), ev.textChunk("a2", "Done"), ev.runFinished("r2")];

let servers: MockAgentServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function serve(...args: Parameters<typeof mockAgentServer>): Promise<MockAgentServer> {
  const server = await mockAgentServer(...args);
  servers.push(server);
  return server;
}

describe("mockAgentServer: a scripted AG-UI endpoint over real HTTP", () => {
  it.each(["sse", "protobuf"] as const)(
    "R-REASON-17: (%s) an HttpAgent runs the scripted turns; every request is recorded; returnedValues sees the values come back",
    async (encoding) => {
      const server = await serve([TURN_1, { events: TURN_2 }], { encoding });
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agent$/);

      const first = await runOverHttp(server.url, runInput({ runId: "r1" }));
      expect(first.error).toBeUndefined();
      expect(first.history.messages.map((m) => m.id)).toEqual(["m1", "a1"]);
      expect(server.requests[0]!.headers["content-type"]).toBe("application/json");
      expect(await server.requests[0]!.end).toBe("finished");
      // What the server issued, in the order it sent it.
      expect(server.issued).toEqual([
        { subtype: "message", entityId: "m1", encryptedValue: VALUE },
        { subtype: "tool-call", entityId: "tc1", encryptedValue: TOOL_VALUE },
      ]);

      const asked = { ...first.history, messages: [...first.history.messages, msg.user("u2", "and?")] };
      const messages = toRunInputMessages(asked, { producer: server.url, onWarning: () => {} });
      const second = await runOverHttp(server.url, runInput({ runId: "r2", messages }));
      expect(second.error).toBeUndefined();
      expect(server.requests.map((r) => (r.json as { runId: string }).runId)).toEqual(["r1", "r2"]);
      expect((await server.request(1)).text).toBe(JSON.stringify((await server.request(1)).json));

      const bytes = (text: string) => Buffer.byteLength(text, "utf8");
      expect(returnedValues(server.requests[1], server.issued)).toEqual([
        { subtype: "message", entityId: "m1", bytes: bytes(VALUE), identical: true },
        { subtype: "tool-call", entityId: "tc1", bytes: bytes(TOOL_VALUE), identical: true },
      ]);
      // The first request carried nothing back: nothing had been issued yet.
      expect(returnedValues(server.requests[0], server.issued).map((v) => v.identical)).toEqual([false, false]);
    },
  );

  it("the protobuf encoding answers with AG-UI's binary media type, which HttpAgent reads by its content type", async () => {
    const server = await serve([TURN_1], { encoding: "protobuf" });
    const response = await fetch(server.url, { method: "POST", body: JSON.stringify(runInput()) });
    expect(response.headers.get("content-type")).toBe("application/vnd.ag-ui.event+proto");
    const body = new Uint8Array(await response.arrayBuffer());
    // Length-prefixed frames: the first 4 bytes give the first message's length (big-endian).
    const first = new DataView(body.buffer).getUint32(0, false);
    expect(first).toBeGreaterThan(0);
    expect(first + 4).toBeLessThan(body.length);
    expect(server.requests[0]!.stats.framesSent).toBe(TURN_1.length);
  });

  it("a request beyond the script gets a 500 naming it, a scripted status its error; the run fails, nothing hangs", async () => {
    const server = await serve([{ events: [], status: 503 }]);
    const scripted = await fetch(server.url, { method: "POST", body: "{}" });
    expect([scripted.status, await scripted.json()]).toEqual([503, { error: "scripted status 503" }]);
    const beyond = await fetch(server.url, { method: "POST", body: "not json" });
    expect([beyond.status, await beyond.json()]).toEqual([500, { error: "no scripted turn for request #1" }]);
    expect(server.requests[1]!.json).toBeUndefined();
    expect((await fetch(new URL("/elsewhere", server.url), { method: "POST" })).status).toBe(404);
  });

  it("close() ends a held response and stops listening", async () => {
    const server = await mockAgentServer([{ events: [ev.runStarted(), ev.reasoningChunk("m1", "x")], holdAfter: 1 }]);
    const response = await fetch(server.url, { method: "POST", body: "{}" });
    const reader = response.body!.getReader();
    await reader.read();
    const request = await server.request(0);
    await server.close();
    expect(await request.end).toBe("client-closed");
    expect(server.issued).toEqual([]);
    await expect(fetch(server.url, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});

describe("mockAgentServer used by mistake: clear errors, nothing uncaught, nothing left hanging", () => {
  it("a taken port rejects the start; close() twice is harmless", async () => {
    const server = await serve([]);
    const port = Number(new URL(server.url).port);
    await expect(mockAgentServer([], { port })).rejects.toThrow(/EADDRINUSE/);
    await server.close();
    await expect(server.close()).resolves.toBeUndefined();
  });

  it("request(n) rejects when the server closes before the n-th request arrives", async () => {
    const server = await mockAgentServer([[ev.runStarted()]]);
    const never = server.request(1);
    await server.close();
    await expect(never).rejects.toThrow("agui-reasoning/testing: mockAgentServer closed before request #1 arrived");
    await expect(server.request(0)).rejects.toThrow("closed before request #0 arrived");
  });

  it("a malformed turn is named: a listed one when the server starts, a function's with a 500", async () => {
    const start = (turn: unknown) => mockAgentServer([[], turn as never]);
    await expect(start(null)).rejects.toThrow(
      new TypeError("agui-reasoning/testing: mockAgentServer turn #1: must be an array of events or { events: [...] }"),
    );
    await expect(start({ holdAfter: 1 })).rejects.toThrow("turn #1: must be an array of events");
    await expect(start({ events: [], endAfter: -1 })).rejects.toThrow(
      "turn #1: endAfter must be a whole number from 0 up",
    );
    await expect(start({ events: [], holdAfter: 1.5 })).rejects.toThrow("holdAfter must be a whole number from 0 up");
    await expect(start({ events: [], writeSize: 0 })).rejects.toThrow("writeSize must be a whole number from 1 up");
    await expect(start({ events: [], framePauseMs: Number.NaN })).rejects.toThrow("framePauseMs must be a number");
    await expect(start({ events: [], status: 99_999 })).rejects.toThrow(
      "status must be a whole number from 200 to 599",
    );
    await expect(mockAgentServer("turns" as never)).rejects.toThrow("script must be a list of turns or a function");

    const turns = [{ events: [], endAfter: "2" }, { events: [ev.runStarted(), { secret: "thought", n: 1n }] }];
    const server = await serve(({ index }) => turns[index] as never);
    const answer = async () => {
      const response = await fetch(server.url, { method: "POST", body: "{}" });
      return [response.status, await response.json()] as const;
    };
    expect(await answer()).toEqual([500, { error: expect.stringContaining("turn #0: endAfter must be") as unknown }]);
    // An event that cannot be serialized: a clean 500 before any frame, naming the event, not quoting it (D-REDACT).
    expect(await answer()).toEqual([500, { error: "event #1 cannot be sent as sse (TypeError)" }]);
  });

  it("holdAfter of every event holds the response after the last one; an earlier endAfter ends it", async () => {
    const events = [ev.runStarted(), ev.runFinished()];
    const server = await serve([
      { events, holdAfter: 2 },
      { events, endAfter: 1, holdAfter: 2 },
    ]);
    const held = await fetch(server.url, { method: "POST", body: "{}" });
    const reader = held.body!.getReader();
    let text = "";
    while (!text.includes("RUN_FINISHED")) text += new TextDecoder().decode((await reader.read()).value);
    const ended = await fetch(server.url, { method: "POST", body: "{}" });
    expect((await ended.text()).match(/data:/g)).toHaveLength(1);
    expect(await server.requests[1]!.end).toBe("finished");
    // Still open after everything was sent: only the client (or close()) ends it.
    expect(server.requests[0]!.stats.framesSent).toBe(2);
    await reader.cancel();
    expect(await server.requests[0]!.end).toBe("client-closed");
  });
});

describe("returnedValues: which issued values a request carried back", () => {
  const issued = [
    { subtype: "message", entityId: "m1", encryptedValue: VALUE },
    { subtype: "tool-call", entityId: "tc1", encryptedValue: TOOL_VALUE },
  ] as const;

  it("R-REASON-17: reads a RunAgentInput too; a changed value, a value on another target or another kind is not back", () => {
    const sameBytes = {
      messages: [
        msg.reasoning("m1", "t", { encryptedValue: VALUE }),
        msg.assistant("a1", "", { toolCalls: [msg.toolCall("tc1", "search", "{}", { encryptedValue: TOOL_VALUE })] }),
      ],
    };
    expect(returnedValues(sameBytes, issued).map((v) => v.identical)).toEqual([true, true]);
    const changed = {
      messages: [
        msg.reasoning("m1", "t", { encryptedValue: `${VALUE} ` }),
        // The tool call's value on the message of the same id, not on the tool call.
        msg.assistant("tc1", "", { encryptedValue: TOOL_VALUE }),
      ],
    };
    expect(returnedValues(changed, issued).map((v) => v.identical)).toEqual([false, false]);
  });

  it("D-TOOL-RESULT-ID: a value is back when either message sharing its id carries it, in either order", () => {
    const assistant = msg.assistant("m1", "");
    const tool = { id: "m1", role: "tool", toolCallId: "tc1", content: "42", encryptedValue: VALUE } as Message;
    for (const messages of [
      [tool, assistant],
      [assistant, tool],
    ])
      expect(returnedValues({ messages }, issued).map((v) => v.identical)).toEqual([true, false]);
  });

  it("a malformed request (no messages, not a list, junk entries) means nothing came back, without throwing", () => {
    for (const request of [undefined, null, 42, {}, { messages: "x" }, { messages: [null, 1, { toolCalls: "x" }] }])
      expect(returnedValues(request, issued).map((v) => v.identical)).toEqual([false, false]);
  });
});
