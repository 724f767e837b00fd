/**
 * D-REDACT on the live paths: `@ag-ui/client` 1.0 reports an HTTP error as `Error("HTTP <status>:
 * <body>")` and a frame that is not JSON with `JSON.parse`'s message, which quotes the frame. A
 * FastAPI-style 422 echoes the request it refused — the conversation, encrypted values included —
 * so those reports must not reach the application's logs as they are: `agentEvents`, the middleware
 * and `check --url` say what happened (the endpoint, the status, the size) and never what was sent.
 * A real `HttpAgent` against a loopback server.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent } from "@ag-ui/client";
import { lastValueFrom, toArray } from "rxjs";
import { reasoningPipeline } from "../../src";
import { agentEvents } from "../../src/integration/agent-events";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { runInput } from "../support/http-run";
import { check, useTempFiles } from "./cli-support";

const SECRET_TEXT = "SECRET-REASONING-TEXT";
const SECRET_VALUE = "SECRET-ENCRYPTED-VALUE";
const conversation = [{ id: "r0", role: "reasoning" as const, content: SECRET_TEXT, encryptedValue: SECRET_VALUE }];

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

/** A server answering every POST with `reply(requestBody)`: a status, a content type and a body. */
async function serve(reply: (body: string) => [number, string, string]): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const [status, type, text] = reply(body);
      res.writeHead(status, { "content-type": type });
      res.end(text);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
}

/** FastAPI's 422: the refused request, quoted. */
const echo422 = (body: string): [number, string, string] => [
  422,
  "application/json",
  JSON.stringify({ detail: [{ msg: "refused", input: JSON.parse(body) }] }),
];

/** A run whose second frame is not JSON, and quotes reasoning text. */
const badFrame = (): [number, string, string] => [
  200,
  "text/event-stream",
  `data: ${JSON.stringify(ev.runStarted("r-http", { threadId: "t-http" }))}\n\ndata: ${SECRET_TEXT} is not json\n\n`,
];

/** A reply that ends inside its second event (a clean end: the server wrote all it had). */
const cutFrame = (): [number, string, string] => [
  200,
  "text/event-stream",
  `data: ${JSON.stringify(ev.runStarted("r-http", { threadId: "t-http" }))}\n\ndata: {"type":"REASONING_MESSAGE_CONTENT","delta":"${SECRET_TEXT}`,
];

async function failureThroughAgentEvents(url: string): Promise<unknown> {
  const pipeline = reasoningPipeline(agentEvents(new HttpAgent({ url }), runInput({ messages: conversation })), {
    producer: url,
    initialMessages: conversation,
    onWarning: () => {},
  });
  return lastValueFrom(pipeline.events$.pipe(toArray())).then(
    () => undefined,
    (error: unknown) => error,
  );
}

async function failureThroughMiddleware(url: string): Promise<unknown> {
  const agent = new HttpAgent({ url });
  agent.setMessages(conversation);
  agent.use(reasoningMiddleware({ producer: url, onWarning: () => {} }));
  const errorLog = jest.spyOn(console, "error").mockImplementation(() => {});
  try {
    return await agent.runAgent().then(
      () => undefined,
      (error: unknown) => error,
    );
  } finally {
    errorLog.mockRestore();
  }
}

const shown = (error: unknown): string =>
  error instanceof Error ? `${error.name} ${error.message} ${String(error.cause)} ${error.stack ?? ""}` : String(error);

describe("D-REDACT the client's reports of what an agent sent do not quote it", () => {
  it.each([
    ["agentEvents", failureThroughAgentEvents],
    ["reasoningMiddleware", failureThroughMiddleware],
  ])(
    "D-REDACT %s: an HTTP 422 echoing the request names the endpoint, the status and the body's size, not the body",
    async (_, fail) => {
      const url = await serve(echo422);
      const error = await fail(url);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^agui-reasoning: ${url.replace(/[.]/g, "\\.")} answered HTTP 422; its body \\(\\d+ characters\\) is not shown`,
        ),
      );
      expect((error as Error).cause).toBeUndefined();
      expect(shown(error)).not.toContain(SECRET_TEXT);
      expect(shown(error)).not.toContain(SECRET_VALUE);
    },
  );

  // R-TRANS-2: a reply that ends inside an event is the same SyntaxError (the client parses the unfinished event).
  it.each([
    ["agentEvents", "a frame that is not JSON", failureThroughAgentEvents, badFrame],
    ["reasoningMiddleware", "a frame that is not JSON", failureThroughMiddleware, badFrame],
    ["agentEvents", "a reply that ends inside an event", failureThroughAgentEvents, cutFrame],
    ["reasoningMiddleware", "a reply that ends inside an event", failureThroughMiddleware, cutFrame],
  ])("D-REDACT R-TRANS-2 %s: %s is a SyntaxError that names both and quotes neither", async (_, _what, fail, reply) => {
    const error = await fail(await serve(reply));
    expect(error).toBeInstanceOf(SyntaxError);
    expect((error as Error).message).toContain("holds an event that is not valid JSON, or ended inside one");
    expect(shown(error)).not.toContain("SECRET-REAS");
  });

  it("D-REDACT check --url: a frame that is not JSON is unusable input, without the parser's quote", async () => {
    const url = await serve(badFrame);
    const input = file("input.json", JSON.stringify(runInput()));
    const r = await check(["check", "--url", url, "--input", input]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("an event is not valid JSON");
    expect(r.stdout + r.stderr).not.toContain("SECRET-REAS");
  });
});

const file = useTempFiles("agui-client-redaction-");
