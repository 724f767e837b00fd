/**
 * Issue 21, finding 7, and issue 22 (D-PATHS): a connection reset after the response started,
 * through `agentEvents`, through the middleware and through `agui-reasoning check --url`, against a
 * real `HttpAgent` and a loopback server that resets the TCP connection. Every path gives the same
 * verdict: RUN_TRUNCATED when a run was open; the stream's end (a success) after a complete run —
 * each with a lossy CONNECTION_BROKEN warning (R-TRANS-2); a TransportError naming the URL when no
 * run came. Never an unhandled rejection (`TypeError: terminated`, which ends a Node service).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent } from "@ag-ui/client";
import { reasoningPipeline, type ReasoningHistory, type ReasoningWarning } from "../../src";
import { agentEvents } from "../../src/integration/agent-events";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { TransportError } from "../../src";
import { ev } from "../../src/testing/builders";
import { runInput } from "../support/http-run";
import { check } from "./cli-support";

const midRun = [ev.runStarted("r1"), ev.textStart("a1"), ev.textContent("a1", "half an ans")];
const completeRun = [...midRun, ev.textEnd("a1"), ev.runFinished("r1")];

/**
 * A server that writes `events` as SSE frames and keeps the response open; `reset()` then resets the
 * connection (TCP RST). The client calls it once it has received the last frame, so the reset comes
 * after the response started however slow the machine is. With `resetAfterMs` (a client that cannot
 * call back: the command) the server resets that long after writing, itself.
 */
async function resettingServer(
  events: readonly unknown[],
  resetAfterMs?: number,
): Promise<{ url: string; server: Server; reset: () => void }> {
  const sockets: Array<{ resetAndDestroy(): void }> = [];
  const reset = (): void => sockets.splice(0).forEach((socket) => socket.resetAndDestroy());
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
      if (res.socket) sockets.push(res.socket);
      if (resetAfterMs !== undefined) setTimeout(reset, resetAfterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
  return { url, server, reset };
}

let servers: Server[] = [];
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeEach(() => {
  unhandled = [];
  process.on("unhandledRejection", onUnhandled);
});
afterEach(async () => {
  process.off("unhandledRejection", onUnhandled);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

/** The server's URL, and what the client calls on each event it receives (resets after the last). */
async function serve(events: readonly unknown[]): Promise<{ url: string; received: (event: unknown) => void }> {
  const { url, server, reset } = await resettingServer(events);
  servers.push(server);
  const last = (events.at(-1) as { type: string }).type;
  return { url, received: (event) => (event as { type?: unknown }).type === last && reset() };
}

/** Long enough for a rejection raised by the client's teardown to be reported. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

async function throughAgentEvents({ url, received }: Awaited<ReturnType<typeof serve>>) {
  const warnings: ReasoningWarning[] = [];
  const onWarning = (w: ReasoningWarning): number => warnings.push(w);
  const pipeline = reasoningPipeline(agentEvents(new HttpAgent({ url }), runInput(), { onWarning }), {
    producer: url,
    onWarning,
  });
  let history: ReasoningHistory | undefined;
  pipeline.history$.subscribe((h) => (history = h));
  const end = await new Promise<{ error?: unknown }>((resolve) =>
    pipeline.events$.subscribe({
      next: received,
      error: (error: unknown) => resolve({ error }),
      complete: () => resolve({}),
    }),
  );
  await settle();
  return { end, history: history!, warnings };
}

async function throughMiddleware({ url, received }: Awaited<ReturnType<typeof serve>>) {
  const warnings: ReasoningWarning[] = [];
  const middleware = reasoningMiddleware({ producer: url, onWarning: (w) => warnings.push(w) });
  const agent = new HttpAgent({ url }).use(middleware);
  const consoleError = jest.spyOn(console, "error").mockImplementation(() => {});
  try {
    const end = await agent.runAgent(undefined, { onEvent: ({ event }) => received(event) }).then(
      () => ({}),
      (error: unknown) => ({ error }),
    );
    await settle();
    return { end: end as { error?: unknown }, history: middleware.history!, warnings };
  } finally {
    consoleError.mockRestore();
  }
}

describe.each([
  ["agentEvents", throughAgentEvents],
  ["the middleware", throughMiddleware],
] as const)("a connection reset through %s", (_path, run) => {
  it("D-TRUNC finding 7: mid-run, the stream ends with RUN_TRUNCATED, the open message truncated, CONNECTION_BROKEN, and no unhandled rejection", async () => {
    const server = await serve(midRun);
    const { end, history, warnings } = await run(server);
    expect(end.error).toMatchObject({ name: "ReasoningProtocolError", code: "RUN_TRUNCATED" });
    expect(history.messages).toEqual([{ id: "a1", role: "assistant", content: "half an ans" }]);
    expect(history.incomplete).toEqual([{ kind: "message", id: "a1", reason: "truncated" }]);
    expect(warnings).toEqual([BROKEN_AFTER(3)]);
    expect(unhandled).toEqual([]);
  });

  it("D-PATHS R-TRANS-2: after a complete run, a reset ends the stream — a success, the run in the history, a lossy CONNECTION_BROKEN warning, no unhandled rejection", async () => {
    const server = await serve(completeRun);
    const { end, history, warnings } = await run(server);
    expect(end).toEqual({});
    expect(history.messages).toEqual([{ id: "a1", role: "assistant", content: "half an ans" }]);
    expect(history.incomplete).toEqual([]);
    expect(warnings).toEqual([BROKEN_AFTER(5)]);
    expect(warnings[0]!.message).toBe(
      "the connection broke after 5 events (TypeError, ECONNRESET): the stream ends there, and what followed is lost",
    );
    expect(unhandled).toEqual([]);
  });

  it("finding 7: a reset before any run came is a TransportError naming the URL, not a success, and no unhandled rejection", async () => {
    const { url, server } = await resettingServer([], 50);
    servers.push(server);
    const { end, warnings } = await run({ url, received: () => {} });
    expect(end.error).toBeInstanceOf(TransportError);
    const error = end.error as TransportError;
    expect(error.message).toContain(`the connection to ${url} failed (TypeError, ECONNRESET)`);
    expect(error.endpoint).toBe(url);
    expect((error.cause as Error).name).toBe("TypeError");
    expect(warnings).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});

/** A server answering 200 with `contentType` and `body`, then ending the response: no frame, no run. */
async function answering(contentType: string, body: string): Promise<{ url: string; received: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": contentType });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`, received: () => {} };
}

describe.each([
  ["agentEvents", throughAgentEvents],
  ["the middleware", throughMiddleware],
] as const)("a reply without any event, through %s (R-TRANS-3: never a success)", (_path, run) => {
  it.each([
    ["an empty event stream", "text/event-stream", ""],
    ["SSE comments only", "text/event-stream", ": keep-alive\n\n: still here\n\n"],
    ["JSON where SSE was expected", "application/json", JSON.stringify(completeRun)],
  ])("D-PATHS: %s is a TransportError naming the URL, as check --url refuses it", async (_what, contentType, body) => {
    const server = await answering(contentType, body);
    const { end, warnings } = await run(server);
    expect(end.error).toBeInstanceOf(TransportError);
    const error = end.error as TransportError;
    expect(error.message).toBe(
      `agui-reasoning: the reply from ${server.url} ended without any event (no run came): a reply without a run is not a success`,
    );
    expect([error.endpoint, error.cause]).toEqual([server.url, undefined]);
    expect(warnings).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});

/** The warning every path gives for a connection that broke after `events` source events. */
const BROKEN_AFTER = (events: number): unknown =>
  expect.objectContaining({
    code: "CONNECTION_BROKEN",
    rule: "R-TRANS-2",
    lossy: true,
    eventType: "<end of stream>",
    eventIndex: events,
  });

describe("D-PATHS: one verdict for a reset after a complete run, on every path", () => {
  it("D-PATHS R-TRANS-2: agentEvents, the middleware and check --url: valid, the same history, CONNECTION_BROKEN after 5 events", async () => {
    const library = await Promise.all([
      throughAgentEvents(await serve(completeRun)),
      throughMiddleware(await serve(completeRun)),
    ]);
    const { url, server } = await resettingServer(completeRun, 50);
    servers.push(server);
    const cli = await check(["check", "--url", url, "--json"]);
    const report = JSON.parse(cli.stdout) as {
      outcome: string;
      warnings: ReasoningWarning[];
      history: { messages: unknown[]; incomplete: unknown[] };
    };
    expect([cli.code, cli.stderr, report.outcome]).toEqual([0, "", "completed"]);
    expect(report.warnings).toEqual([BROKEN_AFTER(5)]);
    for (const { end, history, warnings } of library) {
      expect(end).toEqual({});
      expect(warnings.map((w) => [w.code, w.rule, w.lossy, w.eventIndex])).toEqual(
        report.warnings.map((w) => [w.code, w.rule, w.lossy, w.eventIndex]),
      );
      expect({ messages: history.messages, incomplete: history.incomplete }).toEqual(report.history);
    }
    expect(unhandled).toEqual([]);
  });
});

describe("TransportError", () => {
  it("D-REDACT names the endpoint without credentials and the failure's kind, never the failure's message", async () => {
    const { url } = await serve(completeRun);
    const withCredentials = url.replace("http://", "http://user:secret@") + "?token=t0k";
    const pipeline = reasoningPipeline(agentEvents(new HttpAgent({ url: withCredentials }), runInput()), {
      producer: url,
      onWarning: () => {},
    });
    const error = await new Promise<unknown>((resolve) => pipeline.events$.subscribe({ error: resolve }));
    expect(error).toBeInstanceOf(Error);
    // fetch refuses URLs with credentials: a failure before any response, named all the same.
    const message = (error as Error).message;
    for (const secret of ["secret", "t0k", "user"]) expect(message).not.toContain(secret);
    await settle();
    expect(unhandled).toEqual([]);
  });
});
