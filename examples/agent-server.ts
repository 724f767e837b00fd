import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted AG-UI agent over real HTTP: `POST` a `RunAgentInput`, get `text/event-stream` back, one
 * `data:` frame per event. Used by the demo (`npm start`) and by the integration and conformance tests.
 *
 * It behaves like a slow, real network on purpose: every frame is cut into small TCP writes, and at
 * least one cut per frame lands inside a multi-byte UTF-8 character when the frame has one, so a
 * client that decodes chunk by chunk instead of as a stream is caught.
 */

/** What the server does for one request. */
export interface AgentTurn {
  /** Events to stream, each sent verbatim as one `data:` frame (no validation on the way out). */
  readonly events: readonly unknown[];
  /** End the response cleanly after this many events: the run stops without a terminal event. */
  readonly endAfter?: number;
  /** After this many events stop writing and keep the response open until the client hangs up. */
  readonly holdAfter?: number;
  /** Bytes per TCP write (default 7). */
  readonly writeSize?: number;
  /** Pause after every write, in ms (default 0: the next macrotask, still a separate write). */
  readonly writePauseMs?: number;
  /** Pause after every complete frame, in ms (the demo uses it to look like a model typing). */
  readonly framePauseMs?: number;
  /** HTTP status (default 200). A non-2xx status sends `events` nowhere and ends with a JSON error. */
  readonly status?: number;
}

/** Per request: a list (request n gets turn n) or a function of the recorded request. */
export type AgentScript = readonly AgentTurn[] | ((request: RecordedRequest) => AgentTurn | Promise<AgentTurn>);

/** How a response ended. */
export type ResponseEnd = "finished" | "client-closed";

/** Everything the server saw and did for one request. */
export interface RecordedRequest {
  /** 0-based position among the requests this server received. */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The request body exactly as received, byte for byte. */
  readonly body: Buffer;
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  readonly json: unknown;
  /** Resolves when the response is over: the server ended it, or the client closed the connection first. */
  readonly end: Promise<ResponseEnd>;
  /** Live counters, for tests that prove the transport really was chopped up. */
  readonly stats: { writes: number; framesSent: number; cutsInsideCharacters: number };
}

export interface AgentServer {
  /** `http://127.0.0.1:<port>/agent` */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** The request with this index, once it has arrived. */
  request(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export interface AgentServerOptions {
  /** Path the agent answers on (default `/agent`). Any other path gets 404. */
  readonly path?: string;
  /** Port on 127.0.0.1 (default 0: a free one). */
  readonly port?: number;
  /** `GET` routes beside the agent, by path: the web demo's page, its script and its check. */
  readonly pages?: Readonly<Record<string, Page>>;
}

/** One `GET` route: built per request, so it can report on what the agent received. */
export interface Page {
  readonly contentType: string;
  body(requests: readonly RecordedRequest[]): string | Buffer;
}

/** Starts the server on 127.0.0.1, by default on a free port. */
export async function startAgentServer(script: AgentScript, options: AgentServerOptions = {}): Promise<AgentServer> {
  const path = options.path ?? "/agent";
  // Every request received, in arrival order.
  const requests: RecordedRequest[] = [];
  // Callers of request(n) waiting for the n-th request to arrive.
  const waiting = new Map<number, Array<(r: RecordedRequest) => void>>();

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = (req.url ?? "").split("?")[0]!;
    const page =
      req.method === "GET" && options.pages !== undefined && Object.hasOwn(options.pages, url)
        ? options.pages[url]
        : undefined;
    if (page !== undefined) {
      res.writeHead(200, { "content-type": page.contentType, "cache-control": "no-store" }).end(page.body(requests));
      return;
    }
    if (url !== path) {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    const recorded = record(req, res, body);
    const turn = await pickTurn(script, recorded);
    if (turn === undefined) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `no scripted turn for request #${recorded.index}` }));
      return;
    }
    await respond(turn, res, recorded.stats);
  }

  function record(req: IncomingMessage, res: ServerResponse, body: Buffer): RecordedRequest {
    const recorded: RecordedRequest = {
      index: requests.length,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body,
      json: parseJson(body),
      end: new Promise<ResponseEnd>((resolve) => {
        // "close" fires for both endings; only a finished response has flushed everything.
        res.on("close", () => resolve(res.writableFinished ? "finished" : "client-closed"));
      }),
      stats: { writes: 0, framesSent: 0, cutsInsideCharacters: 0 },
    };
    requests.push(recorded);
    for (const resolve of waiting.get(recorded.index) ?? []) resolve(recorded);
    waiting.delete(recorded.index);
    return recorded;
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    request(index) {
      const arrived = requests[index];
      if (arrived) return Promise.resolve(arrived);
      return new Promise((resolve) => {
        const list = waiting.get(index) ?? [];
        list.push(resolve);
        waiting.set(index, list);
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}

/** The SSE frame of one event: `data: <json>` and a blank line. */
export function sseFrame(event: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(event)}\n\n`, "utf8");
}

/**
 * Where to cut one frame into TCP writes: every `size` bytes, plus one cut inside the first
 * multi-byte character (if any), so a decoder that is not streaming sees a broken character.
 */
export function cutPoints(frame: Buffer, size: number): number[] {
  const cuts = new Set<number>();
  for (let at = size; at < frame.length; at += size) cuts.add(at);
  const lead = frame.findIndex((byte) => byte >= 0xc0 && byte <= 0xf7);
  if (lead >= 0 && lead + 1 < frame.length) cuts.add(lead + 1);
  return [...cuts].sort((a, b) => a - b);
}

/** A cut at `at` splits a character when the byte there continues a multi-byte sequence. */
function splitsCharacter(frame: Buffer, at: number): boolean {
  const byte = frame[at];
  return byte !== undefined && byte >= 0x80 && byte <= 0xbf;
}

async function respond(turn: AgentTurn, res: ServerResponse, stats: RecordedRequest["stats"]): Promise<void> {
  const status = turn.status ?? 200;
  if (status < 200 || status > 299) {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: `scripted status ${status}` }));
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();

  const size = Math.max(1, turn.writeSize ?? 7);
  const stopAt = Math.min(turn.events.length, turn.endAfter ?? Infinity, turn.holdAfter ?? Infinity);
  for (let i = 0; i < stopAt; i++) {
    const frame = sseFrame(turn.events[i]);
    let from = 0;
    for (const at of [...cutPoints(frame, size), frame.length]) {
      if (res.destroyed) return;
      if (at < frame.length && splitsCharacter(frame, at)) stats.cutsInsideCharacters++;
      res.write(frame.subarray(from, at));
      stats.writes++;
      from = at;
      await pause(turn.writePauseMs ?? 0);
    }
    stats.framesSent++;
    if (turn.framePauseMs) await pause(turn.framePauseMs);
  }
  if (turn.holdAfter !== undefined && turn.holdAfter < turn.events.length) {
    // Keep the response open; only the client can end it now.
    await new Promise<void>((resolve) => res.on("close", () => resolve()));
    return;
  }
  res.end();
}

async function pickTurn(script: AgentScript, request: RecordedRequest): Promise<AgentTurn | undefined> {
  return typeof script === "function" ? await script(request) : script[request.index];
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** `0` still yields to the event loop, so consecutive writes are separate TCP writes. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}
