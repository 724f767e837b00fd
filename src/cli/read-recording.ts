import { StringDecoder } from "node:string_decoder";
import { Observable } from "rxjs";

/** Input that cannot be read as events: the message names the line, never its content. Exit code 2. */
export class InputError extends Error {
  override readonly name = "InputError";
}

/** The three spellings of a recorded stream. */
export type RecordingFormat = "JSON Lines" | "JSON array" | "JSON document" | "SSE";

/** A recorded stream being read: its events, and what was learnt about it on the way. */
export interface Recording {
  /** Every event, in order; errors with `InputError` on unreadable input. Read once. */
  readonly events$: Observable<unknown>;
  /** Set once the first bytes were seen. */
  readonly format: RecordingFormat | undefined;
  /** Line where event `index` starts (JSON Lines and SSE only). */
  lineOf(index: number): number | undefined;
}

export interface ReadOptions {
  /** Called after every chunk read: events so far and bytes so far. */
  readonly onProgress?: (events: number, bytes: number) => void;
}

/**
 * Reads a recording from a byte stream, detecting its format from the first bytes: `[` is a JSON
 * array; `data:`, `event:`, `id:`, `retry:` or `:` is SSE; `{` is JSON Lines when the first line is
 * a complete JSON value, else one JSON document (an array, or an object with a `stream` or `events`
 * array, such as a conformance fixture). JSON Lines and SSE are parsed as they arrive.
 */
export function readRecording(chunks: AsyncIterable<Buffer | string>, options: ReadOptions = {}): Recording {
  // Line number of each event's start (JSON Lines, SSE).
  const lines: number[] = [];
  let format: RecordingFormat | undefined;

  const events$ = new Observable<unknown>((subscriber) => {
    const decoder = new StringDecoder("utf8");
    // JSON Lines / SSE: the unfinished last line. Before detection / JSON document: everything so far.
    let pending = "";
    // Lines completed so far (1-based numbering of the next line is lineNo + 1).
    let lineNo = 0;
    let bytes = 0;
    let count = 0;
    // Whether the current text is still the document's start (a BOM and blank lines are skipped).
    let detecting = true;
    // SSE: data lines of the frame being read, and the line it started on.
    let frame: string[] = [];
    let frameLine = 0;
    // JSON document mode (array or object): buffered until the end.
    let whole = false;

    const emit = (event: unknown, line: number | undefined): void => {
      if (line !== undefined) lines[count] = line;
      count++;
      subscriber.next(event);
    };

    const jsonLine = (line: string, at: number): void => {
      const text = line.trim();
      if (text === "") return;
      emit(parseJson(text, `line ${at}`), at);
    };

    const sseLine = (raw: string, at: number): void => {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line === "") return dispatchFrame();
      if (line.startsWith(":")) return;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      if (field !== "data") return;
      if (frame.length === 0) frameLine = at;
      const value = line.slice(colon + 1);
      frame.push(value.startsWith(" ") ? value.slice(1) : value);
    };

    const dispatchFrame = (): void => {
      if (frame.length === 0) return;
      const text = frame.join("\n");
      frame = [];
      emit(parseJson(text, `SSE frame at line ${frameLine}`), frameLine);
    };

    const consumeLines = (text: string, final: boolean): void => {
      pending += text;
      let start = 0;
      for (let nl = pending.indexOf("\n", start); nl >= 0; nl = pending.indexOf("\n", start)) {
        const line = pending.slice(start, nl);
        lineNo++;
        if (format === "SSE") sseLine(line, lineNo);
        else jsonLine(line, lineNo);
        if (subscriber.closed) return;
        start = nl + 1;
      }
      pending = pending.slice(start);
      if (final && pending !== "") {
        lineNo++;
        if (format === "SSE") sseLine(pending, lineNo);
        else jsonLine(pending, lineNo);
        pending = "";
      }
      if (final && format === "SSE") dispatchFrame();
    };

    /** Decides the format from the buffered start; `undefined` while more bytes are needed. */
    const detect = (final: boolean): RecordingFormat | "document" | undefined => {
      const start = pending.replace(/^\uFEFF/, "").trimStart();
      if (start === "") return final ? "JSON Lines" : undefined;
      const first = start[0];
      if (first === "[") return "document";
      if (first === ":" || /^(data|event|id|retry)(:|\r?\n)/.test(start)) return "SSE";
      if (first === "{") {
        const nl = start.indexOf("\n");
        if (nl < 0 && !final) return undefined;
        const firstLine = nl < 0 ? start : start.slice(0, nl);
        try {
          JSON.parse(firstLine);
          return "JSON Lines";
        } catch {
          return "document";
        }
      }
      if (!final && start.length < 6 && "data:event:retry:id:".includes(start)) return undefined;
      throw new InputError(
        "unrecognised input: expected JSON Lines (one event per line), a JSON array of events, or SSE data: frames",
      );
    };

    const feed = (text: string, final: boolean): void => {
      if (whole) {
        pending += text;
        if (final) emitDocument();
        return;
      }
      if (detecting) {
        pending += text;
        const detected = detect(final);
        if (detected === undefined) return;
        detecting = false;
        const buffered = pending.replace(/^\uFEFF/, "");
        pending = "";
        if (detected === "document") {
          whole = true;
          format = "JSON array";
          feed(buffered, final);
          return;
        }
        format = detected;
        consumeLines(buffered, final);
        return;
      }
      consumeLines(text, final);
    };

    const emitDocument = (): void => {
      const document = parseJson(pending, "the document");
      pending = "";
      format = Array.isArray(document) ? "JSON array" : "JSON document";
      const list = Array.isArray(document) ? document : eventsOf(document);
      if (list === undefined) {
        throw new InputError(
          "a JSON document must be an array of events (or an object with a `stream` or `events` array)",
        );
      }
      for (const event of list) {
        if (subscriber.closed) return;
        emit(event, undefined);
      }
    };

    void (async () => {
      try {
        for await (const chunk of chunks) {
          if (subscriber.closed) return;
          bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
          feed(typeof chunk === "string" ? chunk : decoder.write(chunk), false);
          options.onProgress?.(count, bytes);
        }
        if (subscriber.closed) return;
        feed(decoder.end(), true);
        options.onProgress?.(count, bytes);
        subscriber.complete();
      } catch (error) {
        subscriber.error(error instanceof InputError ? error : new InputError(readFailure(error)));
      }
    })();
  });

  return {
    events$,
    get format() {
      return format;
    },
    lineOf: (index) => lines[index],
  };
}

function eventsOf(document: unknown): unknown[] | undefined {
  if (typeof document !== "object" || document === null) return undefined;
  const { stream, events } = document as { stream?: unknown; events?: unknown };
  if (Array.isArray(stream)) return stream as unknown[];
  if (Array.isArray(events)) return events as unknown[];
  return undefined;
}

/**
 * `JSON.parse` with an error that names where, never what: V8's messages quote the offending
 * text, which may be reasoning content, so only the position is kept.
 */
function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    const position = /position (\d+)/.exec(message);
    const detail = position
      ? ` (at character ${Number(position[1]) + 1})`
      : /end of JSON input/.test(message)
        ? " (it ends early)"
        : "";
    throw new InputError(`${where}: not valid JSON${detail}`);
  }
}

/** File-system and stream failures, in words (the path is the caller's to add). */
function readFailure(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  switch (code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "is a directory, not a file";
    case "EACCES":
      return "permission denied";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
