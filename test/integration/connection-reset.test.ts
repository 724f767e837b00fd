/**
 * Issue 21, finding 7: a connection reset after the response started, through `agentEvents` and
 * through the middleware, against a real `HttpAgent` and a loopback server that resets the TCP
 * connection. It ends the stream with RUN_TRUNCATED (a run was open) or a TransportError naming the
 * URL — never an unhandled rejection (`TypeError: terminated`, which ends a Node service), never a
 * success.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpAgent } from "@ag-ui/client";
import { reasoningPipeline, type ReasoningHistory } from "../../src";
import { agentEvents } from "../../src/integration/agent-events";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { TransportError } from "../../src";
import { ev } from "../../src/testing/builders";
import { runInput } from "../support/http-run";

const midRun = [ev.runStarted("r1"), ev.textStart("a1"), ev.textContent("a1", "half an ans")];
const completeRun = [...midRun, ev.textEnd("a1"), ev.runFinished("r1")];

/**
 * A server that writes `events` as SSE frames and keeps the response open; `reset()` then resets the
 * connection (TCP RST). The client calls it once it has received the last frame, so the reset comes
 * after the response started however slow the machine is.
 */
async function resettingServer(
  events: readonly unknown[],
): Promise<{ url: string; server: Server; reset: () => void }> {
  const sockets: Array<{ resetAndDestroy(): void }> = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
      if (res.socket) sockets.push(res.socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
  return { url, server, reset: () => sockets.splice(0).forEach((socket) => socket.resetAndDestroy()) };
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
  const pipeline = reasoningPipeline(agentEvents(new HttpAgent({ url }), runInput()), {
    producer: url,
    onWarning: () => {},
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
  return { end, history: history! };
}

async function throughMiddleware({ url, received }: Awaited<ReturnType<typeof serve>>) {
  const middleware = reasoningMiddleware({ producer: url, onWarning: () => {} });
  const agent = new HttpAgent({ url }).use(middleware);
  const consoleError = jest.spyOn(console, "error").mockImplementation(() => {});
  try {
    const end = await agent.runAgent(undefined, { onEvent: ({ event }) => received(event) }).then(
      () => ({}),
      (error: unknown) => ({ error }),
    );
    await settle();
    return { end: end as { error?: unknown }, history: middleware.history! };
  } finally {
    consoleError.mockRestore();
  }
}

describe.each([
  ["agentEvents", throughAgentEvents],
  ["the middleware", throughMiddleware],
] as const)("a connection reset through %s", (_path, run) => {
  it("D-TRUNC finding 7: mid-run, the stream ends with RUN_TRUNCATED, the open message truncated, and no unhandled rejection", async () => {
    const server = await serve(midRun);
    const { end, history } = await run(server);
    expect(end.error).toMatchObject({ name: "ReasoningProtocolError", code: "RUN_TRUNCATED" });
    expect(history.messages).toEqual([{ id: "a1", role: "assistant", content: "half an ans" }]);
    expect(history.incomplete).toEqual([{ kind: "message", id: "a1", reason: "truncated" }]);
    expect(unhandled).toEqual([]);
  });

  it("finding 7: after a complete run, the stream ends with a TransportError naming the URL, not a success, and no unhandled rejection", async () => {
    const server = await serve(completeRun);
    const url = server.url;
    const { end, history } = await run(server);
    expect(end.error).toBeInstanceOf(TransportError);
    const error = end.error as TransportError;
    expect(error.message).toContain(`the connection to ${url} failed (TypeError, ECONNRESET)`);
    expect(error.endpoint).toBe(url);
    expect((error.cause as Error).name).toBe("TypeError");
    expect(history.incomplete).toEqual([]);
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
