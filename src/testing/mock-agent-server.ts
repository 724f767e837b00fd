import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { filter, firstValueFrom, ReplaySubject } from "rxjs";
import type { IssuedValue } from "./returned-values";
import { isPlainObject } from "../core/json";
import { holds, kitError, objectArgument } from "./arguments";

/**
 * `mockAgentServer(script)`: a scripted AG-UI agent over real HTTP on 127.0.0.1, for integration tests
 * of code that talks to an agent endpoint (an `HttpAgent`, a proxy, a service). `POST` a
 * `RunAgentInput`, get the request's scripted turn back as `text/event-stream` (one `data:` frame per
 * event, sent verbatim) or, with `encoding: "protobuf"`, as AG-UI's binary stream. Every request is
 * recorded, byte for byte. Also the server of this package's demo (`npm start`) and of its own
 * integration and conformance tests.
 *
 * It behaves like a slow, real network on purpose: every frame is cut into small TCP writes, and at
 * least one cut per SSE frame lands inside a multi-byte UTF-8 character when the frame has one, so a
 * client that decodes chunk by chunk instead of as a stream is caught.
 */

/** How the server answers one request, beyond the events themselves. */
export interface ServerTurnOptions {
  /** Events to stream, each sent verbatim as one `data:` frame (no validation on the way out). */
  readonly events: readonly unknown[];
  /** End the response cleanly after this many events: the run stops without a terminal event. */
  readonly endAfter?: number;
  /**
   * After this many events stop writing and keep the response open until the client hangs up (also after the
   * last event when it is `events.length` or more). With `endAfter` too, whichever comes first applies.
   */
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

/** One request's answer: its events, or the events and how to send them. */
export type ServerTurn = readonly unknown[] | ServerTurnOptions;

/** Per request: a list (request n gets turn n) or a function of the recorded request. */
export type ServerScript = readonly ServerTurn[] | ((request: RecordedRequest) => ServerTurn | Promise<ServerTurn>);

/** How a response ended. */
export type ResponseEnd = "finished" | "client-closed";

/** Everything the server saw and did for one request. */
export interface RecordedRequest {
  /** 0-based position among the requests this server received. */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  /** The request headers, by lower-case name (Node's `IncomingHttpHeaders`). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request body exactly as received, byte for byte. */
  readonly body: Uint8Array;
  /** The body decoded as UTF-8. */
  readonly text: string;
  /** The body parsed as JSON (`undefined` when it is not JSON): the `RunAgentInput` the client sent. */
  readonly json: unknown;
  /** Resolves when the response is over: the server ended it, or the client closed the connection first. */
  readonly end: Promise<ResponseEnd>;
  /** Live counters, for tests that prove the transport really was chopped up. */
  readonly stats: { writes: number; framesSent: number; cutsInsideCharacters: number };
}

export interface MockAgentServer {
  /** `http://127.0.0.1:<port>/agent` */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /**
   * Every encrypted value this server has sent (its well-formed `REASONING_ENCRYPTED_VALUE` events, in
   * the order sent): what `returnedValues(request, server.issued)` looks for in a later request.
   */
  readonly issued: readonly IssuedValue[];
  /** The request with this index, once it has arrived (rejects when the server closes first). */
  request(index: number): Promise<RecordedRequest>;
  /** Stops listening and ends every open connection (a held response included). Calling it again is harmless. */
  close(): Promise<void>;
}

export interface MockAgentServerOptions {
  /** Path the agent answers on (default `/agent`). Any other path gets 404. */
  readonly path?: string;
  /** Port on 127.0.0.1 (default 0: a free one). */
  readonly port?: number;
  /**
   * `"sse"` (default): `text/event-stream`. `"protobuf"`: AG-UI's binary stream
   * (`application/vnd.ag-ui.event+proto`, length-prefixed protocol buffers), which `HttpAgent` reads
   * by its content type; needs `@ag-ui/encoder` installed, and the events must be ones it can encode.
   */
  readonly encoding?: "sse" | "protobuf";
  /** `GET` routes beside the agent, by path (e.g. a test page, its script, a report). */
  readonly pages?: Readonly<Record<string, ServerPage>>;
}

/** One `GET` route: built per request, so it can report on what the agent received. */
export interface ServerPage {
  readonly contentType: string;
  body(requests: readonly RecordedRequest[]): string | Uint8Array;
}

/** How events are framed on the wire. */
interface Framing {
  readonly name: string;
  readonly contentType: string;
  frame(event: unknown): Buffer;
  /** Whether a cut inside a UTF-8 character means anything (text frames only). */
  readonly text: boolean;
}

/** One `data:` frame per event, ended by a blank line. */
const SSE: Framing = {
  name: "sse",
  contentType: "text/event-stream",
  frame: (event) => Buffer.from(`data: ${JSON.stringify(event)}\n\n`, "utf8"),
  text: true,
};

/**
 * Starts the server on 127.0.0.1, by default on a free port. Rejects when the port is taken, or when a turn of a
 * listed script is not one (a function's turns are checked per request: a 500 naming the problem).
 */
export async function mockAgentServer(
  script: ServerScript,
  options?: MockAgentServerOptions,
): Promise<MockAgentServer> {
  if (typeof script !== "function") {
    if (!holds(script, Array.isArray)) throw kitError("mockAgentServer's script must be a list of turns or a function");
    script.forEach(turnOptions);
  }
  const { path = "/agent", encoding, pages, port: listenOn } = objectArgument(options, "mockAgentServer", "options");
  const framing = encoding === "protobuf" ? await protobufFraming() : SSE;
  const requests: RecordedRequest[] = [];
  const issued: IssuedValue[] = [];
  // Every request as it arrives, replayed to a caller of request(n) that comes later.
  const arrivals = new ReplaySubject<RecordedRequest>(Infinity);

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) =>
      jsonError(res, 500, error instanceof Error ? error.message : String(error)),
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = (req.url ?? "").split("?")[0]!;
    const page = req.method === "GET" && pages !== undefined && Object.hasOwn(pages, url) ? pages[url] : undefined;
    if (page !== undefined) {
      res.writeHead(200, { "content-type": page.contentType, "cache-control": "no-store" }).end(page.body(requests));
      return;
    }
    if (url !== path) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = record(req, res, Buffer.concat(chunks));
    const turn = typeof script === "function" ? await script(recorded) : script[recorded.index];
    if (turn === undefined) jsonError(res, 500, `no scripted turn for request #${recorded.index}`);
    else await respond(turnOptions(turn, recorded.index), res, recorded.stats);
  }

  function record(req: IncomingMessage, res: ServerResponse, body: Buffer): RecordedRequest {
    const text = body.toString("utf8");
    const recorded: RecordedRequest = {
      index: requests.length,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body,
      text,
      json: parseJson(text),
      end: new Promise<ResponseEnd>((resolve) => {
        // "close" fires for both endings; only a finished response has flushed everything.
        res.on("close", () => resolve(res.writableFinished ? "finished" : "client-closed"));
      }),
      stats: { writes: 0, framesSent: 0, cutsInsideCharacters: 0 },
    };
    requests.push(recorded);
    arrivals.next(recorded);
    return recorded;
  }

  async function respond(turn: ServerTurnOptions, res: ServerResponse, stats: RecordedRequest["stats"]): Promise<void> {
    const status = turn.status ?? 200;
    if (status < 200 || status > 299) {
      jsonError(res, status, `scripted status ${status}`);
      return;
    }
    const stopAt = Math.min(turn.events.length, turn.endAfter ?? Infinity, turn.holdAfter ?? Infinity);
    // Framed before the headers, so an event that cannot be sent is a clean 500, not a broken stream.
    const frames = turn.events.slice(0, stopAt).map((event, i) => {
      try {
        return framing.frame(event);
      } catch (error) {
        // Its name only: a serializer's message may quote the event (D-REDACT).
        throw new Error(
          `event #${i} cannot be sent as ${framing.name} (${error instanceof Error ? error.name : "error"})`,
          { cause: error },
        );
      }
    });
    res.writeHead(200, { "content-type": framing.contentType, "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();

    const size = turn.writeSize ?? 7;
    for (const [i, frame] of frames.entries()) {
      let from = 0;
      for (const at of [...cutPoints(frame, size), frame.length]) {
        if (res.destroyed) return;
        if (framing.text && at < frame.length && splitsCharacter(frame, at)) stats.cutsInsideCharacters++;
        res.write(frame.subarray(from, at));
        stats.writes++;
        from = at;
        await pause(turn.writePauseMs ?? 0);
      }
      stats.framesSent++;
      const value = issuedValueOf(turn.events[i]);
      if (value !== undefined) issued.push(value);
      if (turn.framePauseMs) await pause(turn.framePauseMs);
    }
    if (turn.holdAfter !== undefined && turn.holdAfter <= (turn.endAfter ?? Infinity)) {
      // Keep the response open; only the client (or close()) can end it now.
      await new Promise<void>((resolve) => res.on("close", () => resolve()));
      return;
    }
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    // A taken port is an "error" event, not a callback: without this it would be uncaught and the start would hang.
    server.once("error", reject).listen(listenOn ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    issued,
    request: (index) =>
      // eslint-disable-next-line rxjs-x/no-ignored-default-value -- no default: request(n) waits for the n-th, until close()
      firstValueFrom(arrivals.pipe(filter((r) => r.index === index))).catch(() => {
        throw new Error(`agui-reasoning/testing: mockAgentServer closed before request #${index} arrived`);
      }),
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        arrivals.complete();
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      });
      return closed;
    },
  };
}

// A turn's numeric options: the least value, whether it must be whole, the greatest.
const NUMBERS: Readonly<Record<string, readonly [number, boolean, number?]>> = {
  endAfter: [0, true],
  holdAfter: [0, true],
  writeSize: [1, true],
  writePauseMs: [0, false],
  framePauseMs: [0, false],
  status: [200, true, 599],
};

/** A scripted turn as options, or a TypeError saying what is wrong with it (never a TypeError from inside). */
function turnOptions(turn: ServerTurn, index: number): ServerTurnOptions {
  const options = holds(turn, Array.isArray) ? { events: turn as readonly unknown[] } : (turn as ServerTurnOptions);
  const problem = (what: string) => kitError(`mockAgentServer turn #${index}: ${what}`);
  if (!holds(options as unknown, (o) => isPlainObject(o) && Array.isArray(o.events)))
    throw problem("must be an array of events or { events: [...] }");
  for (const [key, [least, whole, most = Infinity]] of Object.entries(NUMBERS)) {
    const n = (options as unknown as Record<string, unknown>)[key];
    if (n === undefined) continue;
    if (typeof n !== "number" || !(whole ? Number.isInteger(n) : Number.isFinite(n)) || n < least || n > most)
      throw problem(
        `${key} must be a ${whole ? "whole " : ""}number from ${least}${most < Infinity ? ` to ${most}` : " up"}`,
      );
  }
  return options;
}

/** AG-UI's binary framing, from `@ag-ui/encoder` (loaded only when asked for). */
async function protobufFraming(): Promise<Framing> {
  let encoder: typeof import("@ag-ui/encoder");
  try {
    encoder = await import("@ag-ui/encoder");
  } catch {
    throw new Error(
      'agui-reasoning/testing: mockAgentServer({ encoding: "protobuf" }) needs @ag-ui/encoder: npm install -D @ag-ui/encoder',
    );
  }
  const { EventEncoder, AGUI_MEDIA_TYPE } = encoder;
  const binary = new EventEncoder({ accept: AGUI_MEDIA_TYPE });
  return {
    name: "protobuf",
    contentType: AGUI_MEDIA_TYPE,
    frame: (event) => Buffer.from(binary.encodeProtobuf(event as Parameters<typeof binary.encodeProtobuf>[0])),
    text: false,
  };
}

/**
 * Where to cut one frame into TCP writes: every `size` bytes, plus one cut inside the first
 * multi-byte character (if any), so a decoder that is not streaming sees a broken character.
 */
function cutPoints(frame: Buffer, size: number): number[] {
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

/** The value a well-formed `REASONING_ENCRYPTED_VALUE` event issues. */
function issuedValueOf(event: unknown): IssuedValue | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  const { type, subtype, entityId, encryptedValue } = event as Record<string, unknown>;
  if (type !== "REASONING_ENCRYPTED_VALUE" || (subtype !== "message" && subtype !== "tool-call")) return undefined;
  if (typeof entityId !== "string" || typeof encryptedValue !== "string") return undefined;
  return { subtype, entityId, encryptedValue };
}

/** Ends the response with `status` and a JSON body `{ error }`. */
function jsonError(res: ServerResponse, status: number, error: string): void {
  if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error }));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `0` still yields to the event loop, so consecutive writes are separate TCP writes. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}
