import { readFile } from "node:fs/promises";
import { catchError } from "rxjs";
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { RunAgentInput } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { isPlainObject } from "../core/json";
import { plural } from "../core/plural";
import { agentEvents } from "../integration/agent-events";
import { TransportError, connectionBroken } from "../integration/transport-end";
import type { Source } from "./inspect";
import { grouped } from "./outcome";
import { InputError, isJson, sseData, startsLikeSse } from "./read-recording";

/** The transports an `HttpAgent` reads (`--accept`): their media type, and how the report names what it read. */
const TRANSPORTS = {
  sse: { mediaType: "text/event-stream", label: "SSE over HTTP" },
  proto: { mediaType: "application/vnd.ag-ui.event+proto", label: "protobuf over HTTP" },
} as const;
type Transport = keyof typeof TRANSPORTS;
/** Media types an `HttpAgent` reads as an event stream. */
const EVENT_STREAM = /^(text\/event-stream|application\/vnd\.ag-ui\.event\+proto)\b/i;
/** Bytes of a wrong reply looked at to describe its shape. */
const PEEK_BYTES = 512;

/**
 * `--url`: one run of a live agent through a real `HttpAgent` (an optional dependency, loaded on
 * demand). The agent's fetch is wrapped so that a reply which is not an event stream — an HTTP
 * error, an HTML page, JSON — fails as unusable input (exit 2) with its status, reason, content type
 * and the shape of its first bytes, never their content.
 */
export async function liveSource(url: string, inputFile: string | undefined, accept: Transport): Promise<Source> {
  const input = await runInput(inputFile);
  let client: typeof import("@ag-ui/client");
  try {
    // A variable specifier keeps bundlers from inlining the client: it stays an optional dependency.
    const specifier = "@ag-ui/client";
    client = (await import(specifier)) as typeof import("@ag-ui/client");
  } catch {
    throw new InputError("--url needs @ag-ui/client: npm install @ag-ui/client");
  }
  // What the endpoint answered: `HTTP 404 Not Found, content type "text/html"`.
  let reply: string | undefined;
  let contentType = "";
  let transport: Transport | undefined;
  let broken: string | undefined;
  // How the reply ends its lines, from its first line break: what explains an SSE stream the client misreads.
  let lineEnding: LineEnding | undefined;
  const checkedFetch = async (target: string, init: RequestInit): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set("accept", TRANSPORTS[accept].mediaType);
    const response = await fetch(target, { ...init, headers });
    contentType = response.headers.get("content-type") ?? "";
    const reason = response.statusText || STATUS_CODES[response.status] || "";
    reply = `HTTP ${response.status}${reason ? ` ${reason}` : ""}, content type ${contentType ? JSON.stringify(contentType) : "none"}`;
    if (response.ok && EVENT_STREAM.test(contentType)) {
      transport = contentType.toLowerCase().startsWith(TRANSPORTS.proto.mediaType) ? "proto" : "sse";
      return guarded(
        response,
        transport === "sse",
        (reason) => (broken ??= reason),
        (ending) => (lineEnding ??= ending),
      );
    }
    const shape = await bodyShape(response);
    const what = `${reply}, ${shape}`;
    throw new InputError(
      response.ok
        ? `the reply is not an event stream (${TRANSPORTS.sse.mediaType} or ${TRANSPORTS.proto.mediaType}): ${what}`
        : what,
    );
  };
  const agent = new client.HttpAgent({ url, fetch: checkedFetch });
  return {
    label: url,
    // What the client could not read, said with what the reply was and, where known, why.
    events$: agentEvents(agent, input).pipe(
      catchError((error: unknown) => {
        if (error instanceof TransportError && error.cause === undefined && reply !== undefined) {
          throw new InputError(`the reply holds no events: ${reply}${misreadProtobuf(contentType)}`);
        }
        if (error instanceof SyntaxError) {
          if (transport === "sse" && lineEnding !== undefined && lineEnding !== "LF")
            throw new InputError(unsplitLines(lineEnding));
          // The library's message names the URL, which the report already says (D-REDACT: never the parser's).
          throw new SyntaxError("an event is not valid JSON (the parser's message is not shown: it quotes the event)");
        }
        throw error;
      }),
    ),
    initialMessages: input.messages,
    drain: false,
    format: () => TRANSPORTS[transport ?? accept].label,
    lineOf: () => undefined,
    ended: (events) => (broken === undefined ? [] : [connectionBroken(events, broken, grouped(events))]),
  };
}

/** How a reply ends its lines: LF, CRLF, or CR alone — all three SSE's own (WHATWG). */
type LineEnding = "LF" | "CRLF" | "CR";

/**
 * `@ag-ui/client` 1.0 splits an SSE stream into events at "\n\n" only, so lines ended by CRLF or CR
 * alone (both SSE, and what some servers send) run together into one frame it cannot parse.
 */
function unsplitLines(ending: "CRLF" | "CR"): string {
  const shown = ending === "CRLF" ? '"\\r\\n"' : '"\\r" alone';
  return (
    `the stream ends its lines with ${ending} (${shown}): SSE allows it, but @ag-ui/client 1.0 separates ` +
    'events only at "\\n\\n", so an HttpAgent reads its events run together as one that is not JSON; ' +
    'end the lines with "\\n"'
  );
}

/**
 * `@ag-ui/client` 1.0 reads protobuf only under the bare media type, and anything else as SSE: a
 * protobuf reply whose content type has parameters (`; charset=binary`) yields no event.
 */
function misreadProtobuf(contentType: string): string {
  const [type, ...parameters] = contentType.split(";");
  if (parameters.length === 0 || type!.trim().toLowerCase() !== TRANSPORTS.proto.mediaType) return "";
  return `: @ag-ui/client 1.0 reads protobuf only when the content type is exactly "${TRANSPORTS.proto.mediaType}", and read this reply as SSE`;
}

/**
 * The response with a body that ends instead of failing when the connection breaks after the reply
 * started (a reset, broken chunked encoding, a body shorter than its content-length): R-TRANS-2 — a
 * connection dying is the end of the stream, so an open run is truncated (RUN_TRUNCATED), one that
 * ended is closed. `HttpAgent` rethrows a failed body's cancellation outside any promise chain (an
 * uncaught `TypeError: terminated` and a stack trace), so the body it reads never fails.
 *
 * `sse`: the bytes after the last blank line wait for the next one (`Unfinished`), because an SSE
 * event is dispatched at its blank line and one the reply ends inside is not (WHATWG); the client
 * would parse it and fail with "not valid JSON". Cut there, the stream ends before it, as a recording
 * cut inside its last frame does (RECORDING_CUT): a truncation, reported with the connection's end.
 */
function guarded(
  response: Response,
  sse: boolean,
  onBreak: (reason: string) => void,
  onLineEnding: (ending: LineEnding) => void,
): Response {
  const reader = response.body?.getReader();
  if (!reader) return response;
  // The reply's first line break: looked for, a CR seen (its line ending is the next byte's), or found.
  let lineBreak: "looking" | "cr" | "found" = "looking";
  let ending: LineEnding | undefined;
  const sniff = (bytes: Uint8Array): void => {
    for (let i = 0; i < bytes.length && lineBreak !== "found"; i++) {
      const b = bytes[i];
      if (lineBreak === "cr") ending = b === 0x0a ? "CRLF" : "CR";
      else if (b === 0x0a) ending = "LF";
      else if (b === 0x0d) lineBreak = "cr";
      if (ending !== undefined) {
        onLineEnding(ending);
        lineBreak = "found";
      }
    }
  };
  const unfinished = new Unfinished();
  /** The end of the body: the unfinished event's bytes go on if they are a whole event, else the reply was cut inside it. */
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, broke?: string): void => {
    const tail = unfinished.take();
    let cut: string | undefined;
    if (tail.length > 0 && (ending !== "LF" || wholeEvent(tail))) controller.enqueue(tail);
    else if (tail.length > 0) cut = `an unfinished event of ${plural(tail.length, "byte")} dropped`;
    if (cut !== undefined) onBreak(`${broke ?? "the reply ended inside an event"}; ${cut}`);
    else if (broke !== undefined) onBreak(broke);
    controller.close();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Until something goes on (or the end): a pull that enqueues nothing is not called again.
        for (;;) {
          const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
          if (done) {
            if (lineBreak === "cr") onLineEnding((ending = "CR"));
            end(controller);
            return;
          }
          if (!value) continue;
          sniff(value);
          // Only an LF stream is split here as the client splits it; any other goes on as it comes.
          const split = sse && (ending === undefined || ending === "LF");
          const ready = split ? unfinished.add(value) : unfinished.take(value);
          if (ready.length === 0) continue;
          controller.enqueue(ready);
          return;
        }
      } catch (error) {
        end(controller, breakReason(error));
      }
    },
    cancel: () => reader.cancel().catch(() => {}),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The bytes of an SSE reply after its last "\n\n" (the event not finished yet), kept as the chunks
 * that brought them: each chunk is searched once, so an event arriving in many small writes costs
 * O(its size), not a copy of all of it per write.
 */
class Unfinished {
  private chunks: Uint8Array[] = [];
  // The last byte held (a "\n" there and one opening the next chunk make a blank line).
  private last = -1;

  /** Adds `bytes`; gives what is now finished (up to and with the last "\n\n"), possibly nothing. */
  add(bytes: Uint8Array): Uint8Array {
    let at = -1;
    for (let i = bytes.length - 1; i > 0 && at < 0; i--) if (bytes[i] === 0x0a && bytes[i - 1] === 0x0a) at = i + 1;
    if (at < 0 && bytes[0] === 0x0a && this.last === 0x0a) at = 1;
    if (bytes.length > 0) this.last = bytes[bytes.length - 1]!;
    if (at < 0) {
      this.chunks.push(bytes);
      return EMPTY_BYTES;
    }
    const ready = Buffer.concat([...this.chunks, bytes.subarray(0, at)]);
    this.chunks = at < bytes.length ? [bytes.subarray(at)] : [];
    return ready;
  }

  /** The unfinished bytes, then `more` (none: nothing), and none held any more: no copy when none were held. */
  take(more: Uint8Array = EMPTY_BYTES): Uint8Array {
    if (this.chunks.length === 0) return more;
    const tail = Buffer.concat([...this.chunks, more]);
    this.chunks = [];
    return tail;
  }
}

const EMPTY_BYTES = new Uint8Array(0);

/**
 * Whether the bytes after the last blank line are one whole event all the same (its data lines are
 * JSON, or it has none: a comment, a trailing newline): the client dispatches it at the end, as the
 * recording reader reads such a last frame (R-TRANS-4), with the same reading of its lines.
 */
function wholeEvent(bytes: Uint8Array): boolean {
  const data = Buffer.from(bytes).toString("utf8").split("\n").map(sseData);
  const values = data.filter((value) => value !== undefined);
  return values.length === 0 || isJson(values.join("\n"));
}

/** `terminated (other side closed)`: the fetch error and its cause, codes and words only. */
function breakReason(error: unknown): string {
  const words = (e: unknown): string | undefined => {
    if (!(e instanceof Error)) return undefined;
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" && !e.message.includes(code) ? `${e.message} [${code}]` : e.message;
  };
  const cause = error instanceof Error ? words(error.cause) : undefined;
  const own = words(error) ?? "the connection failed";
  return cause ? `${own} (${cause})` : own;
}

/** The shape of a body's first bytes, in words: what kind of document it looks like, never what it says. */
async function bodyShape(response: Response): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await peek(response, PEEK_BYTES);
  } catch {
    return "a body that could not be read";
  }
  if (bytes.length === 0) return "an empty body";
  const size = bytes.length >= PEEK_BYTES ? `more than ${PEEK_BYTES} bytes` : plural(bytes.length, "byte");
  const start = Buffer.from(bytes)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  let kind: string;
  if (/^</.test(start)) kind = /^<!doctype html|^<html/i.test(start) ? "an HTML page" : "markup (HTML or XML)";
  else if (/^[{[]/.test(start)) kind = "JSON";
  else if (startsLikeSse(start)) kind = "SSE frames";
  else if (bytes.some((b) => b < 9 || (b > 13 && b < 32))) kind = "binary data";
  else kind = "plain text";
  return `a body of ${size} that looks like ${kind}`;
}

/** Up to `max` bytes of the body; the rest is cancelled. */
async function peek(response: Response, max: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let length = 0;
  while (length < max) {
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || !value) break;
    parts.push(value);
    length += value.length;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(parts).subarray(0, max);
}

/** The run input for `--url`: the file's fields over fresh ids and empty lists. */
async function runInput(file: string | undefined): Promise<RunAgentInput> {
  const base: RunAgentInput = {
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  if (file === undefined) return base;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new InputError(`--input ${file}: ${code === "ENOENT" ? "no such file" : "cannot be read"}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InputError(`--input ${file}: not valid JSON`);
  }
  if (!isPlainObject(parsed)) throw new InputError(`--input ${file}: must be a JSON object (a RunAgentInput)`);
  const merged = { ...base, ...(parsed as Partial<RunAgentInput>) };
  // The schema judges; the user's object is what is sent (fields the schema does not know stay).
  const checked = RunAgentInputSchema.safeParse(merged);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new InputError(
      `--input ${file}: not a RunAgentInput: ${issuePath(issue.path)} ${issue.message.replace(/^Invalid input: /, "")}`,
    );
  }
  return merged;
}

/** `"messages"[0].role` — where a zod issue is, by keys and indices (never a value). */
function issuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "the object:";
  return `${path.map((k, i) => (typeof k === "number" ? `[${k}]` : `${i === 0 ? "" : "."}${String(k)}`)).join("")}:`;
}
