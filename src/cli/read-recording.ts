import { Observable } from "rxjs";
import { LineSplitter } from "./line-splitter";
import { StrictUtf8 } from "./utf8";

/** Input that cannot be read as events: the message names the line, never its content. Exit code 2. */
export class InputError extends Error {
  override readonly name = "InputError";
}

/** The spellings of a recorded stream. */
export type RecordingFormat = "JSON Lines" | "JSON array" | "JSON document" | "SSE";

/** A recorded stream being read: its events, and what was learnt about it on the way. */
export interface Recording {
  /** Every event, in order; errors with `InputError` on unreadable input. Read once. */
  readonly events$: Observable<unknown>;
  /** Set once the first bytes were seen. */
  readonly format: RecordingFormat | undefined;
  /** Line where event `index` starts (JSON Lines and SSE only). */
  lineOf(index: number): number | undefined;
  /**
   * Where the recording was cut: its last line (JSON Lines) or SSE frame ended with the input, with
   * no line break or blank line after it, and is not complete JSON — an event the recording lost,
   * not bad input (R-TRANS-2: a stream that stops without a terminal event is a truncated run).
   */
  readonly cut: { readonly line: number; readonly unit: "line" | "SSE frame" } | undefined;
}

/**
 * Reads a recording from a byte stream, detecting its format from the first bytes: `[` is a JSON
 * array; `data:`, `event:`, `id:`, `retry:` or `:` is SSE; `{` is JSON Lines when the first line is
 * a complete JSON value, else one JSON document (an array, or an object with a `stream` or `events`
 * array, such as a conformance fixture). JSON Lines and SSE are parsed as they arrive, in time linear
 * in the input (`LineSplitter`); bytes must be UTF-8 (`StrictUtf8`).
 */
export function readRecording(
  chunks: AsyncIterable<Buffer | string>,
  options: { readonly onProgress?: (events: number, bytes: number) => void } = {},
): Recording {
  // Line number of each event's start (JSON Lines, SSE).
  const lines: number[] = [];
  let format: RecordingFormat | undefined;
  let cut: Recording["cut"];

  const events$ = new Observable<unknown>((subscriber) => {
    const decoder = new StrictUtf8();
    let splitter: LineSplitter | undefined;
    // Lines completed so far (1-based numbering of the next line is lineNo + 1).
    let lineNo = 0;
    let bytes = 0;
    let count = 0;
    // What is read now: the start (format unknown, held), lines, or one document held to the end.
    let mode: "start" | "lines" | "document" = "start";
    // Text held by "start" and "document" (joined once, when needed).
    let held: string[] = [];
    // A `{` start is decided by its first line: held until a chunk brings the line's end.
    let awaitingLine = false;
    // The first line of JSON Lines, parsed while deciding, emitted when it is read as a line.
    let firstValue: { value: unknown } | undefined;
    // SSE: data lines of the frame being read, and the line it started on.
    let frame: string[] = [];
    let frameLine = 0;

    const emit = (event: unknown, line: number | undefined): void => {
      if (line !== undefined) lines[count] = line;
      count++;
      subscriber.next(event);
    };

    const jsonLine = (line: string, at: number): void => {
      const text = line.trim();
      if (text === "") return;
      if (firstValue !== undefined) {
        const { value } = firstValue;
        firstValue = undefined;
        return emit(value, at);
      }
      emit(parseJson(text, "line", at), at);
    };

    const sseLine = (line: string, at: number): void => {
      if (line === "") return dispatchFrame();
      const data = sseData(line);
      if (data === undefined) return;
      if (frame.length === 0) frameLine = at;
      frame.push(data);
    };

    const dispatchFrame = (): void => {
      if (frame.length === 0) return;
      const text = frame.join("\n");
      frame = [];
      // A frame of empty data lines holds no event (a keep-alive).
      if (text.trim() === "") return;
      emit(parseJson(text, "SSE frame at line", frameLine), frameLine);
    };

    const onLine = (line: string): boolean => {
      lineNo++;
      if (format === "SSE") sseLine(line, lineNo);
      else jsonLine(line, lineNo);
      return !subscriber.closed;
    };

    /** The input ended: the last line without a break, and the SSE frame still open. */
    const endLines = (): void => {
      const last = splitter!.end();
      if (format === "SSE") {
        if (last !== undefined) sseLine(last, lineNo + 1);
        // WHATWG discards a frame the input ends inside; one that is complete JSON is read (a recording
        // whose final blank line was dropped), one that is not is where the recording was cut.
        if (frame.length > 0 && !isJson(frame.join("\n"))) {
          cut = { line: frameLine, unit: "SSE frame" };
          frame = [];
        }
        dispatchFrame();
        return;
      }
      if (last === undefined) return;
      if (last.trim() !== "" && firstValue === undefined && !isJson(last.trim())) {
        cut = { line: lineNo + 1, unit: "line" };
        return;
      }
      onLine(last);
    };

    const startLines = (text: string, final: boolean): void => {
      mode = "lines";
      held = [];
      splitter = new LineSplitter(format === "SSE");
      feed(text, final);
    };

    const feed = (text: string, final: boolean): void => {
      if (mode === "lines") {
        splitter!.push(text, onLine);
        if (final && !subscriber.closed) endLines();
        return;
      }
      held.push(text);
      if (mode === "document") {
        if (final) emitDocument();
      } else if (!awaitingLine || final || text.includes("\n")) decide(final);
    };

    /** "start": decides the format from the start of the input; keeps holding while more is needed. */
    const decide = (final: boolean): void => {
      const text = held.join("");
      held = [text];
      const body = text.replace(/^\uFEFF/, "");
      const start = body.trimStart();
      if (start === "") {
        if (final) format = "JSON Lines";
        return;
      }
      const first = start[0];
      if (first === "[") {
        mode = "document";
        format = "JSON array";
        if (final) emitDocument();
        return;
      }
      if (startsLikeSse(start)) {
        format = "SSE";
        return startLines(body, final);
      }
      if (first === "{") {
        // JSON Lines when the first line is a JSON value, else one document.
        const nl = body.indexOf("\n");
        awaitingLine = nl < 0 && !final;
        if (awaitingLine) return;
        try {
          firstValue = { value: JSON.parse(nl < 0 ? body : body.slice(0, nl)) };
        } catch {
          mode = "document";
          if (final) emitDocument();
          return;
        }
        format = "JSON Lines";
        return startLines(body, final);
      }
      if (!final && start.length < 6 && "data:event:retry:id:".includes(start)) return;
      throw new InputError(
        "unrecognised input: expected JSON Lines (one event per line), a JSON array of events, or SSE data: frames",
      );
    };

    const emitDocument = (): void => {
      const document = parseJson(held.join("").replace(/^\uFEFF/, ""), "the document");
      held = [];
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
        // Cut inside a character: its bytes stand as U+FFFD, which makes the last line or frame no
        // JSON — where the recording was cut — and never reaches an event (nothing can follow it).
        const cutInside = decoder.end();
        feed(cutInside ? "\uFFFD" : "", true);
        // An SSE line it alone begins is a field line without data: the frame it began was cut all the same.
        if (cutInside && cut === undefined && format === "SSE") cut = { line: lineNo + 1, unit: "SSE frame" };
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
    get cut() {
      return cut;
    },
  };
}

/**
 * The value of an SSE `data` line, or undefined for any other line (another field, a comment). WHATWG
 * HTML § 9.2.6 "Interpreting an event stream": a line without a colon is a field name with an empty
 * value; one space after the colon is dropped; comments start with a colon.
 */
/**
 * Whether text (its leading whitespace trimmed) opens like SSE: a comment, or a field line of one of
 * the four fields SSE names, with a value or none (WHATWG: a line without a colon is a field too).
 */
export function startsLikeSse(start: string): boolean {
  return start.startsWith(":") || /^(data|event|id|retry)(:|\r|\n)/.test(start);
}

export function sseData(line: string): string | undefined {
  if (line.startsWith(":")) return undefined;
  const colon = line.indexOf(":");
  if ((colon < 0 ? line : line.slice(0, colon)) !== "data") return undefined;
  const value = colon < 0 ? "" : line.slice(colon + 1);
  return value.startsWith(" ") ? value.slice(1) : value;
}

/** Whether `text` is one complete JSON value. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function eventsOf(document: unknown): unknown[] | undefined {
  if (typeof document !== "object" || document === null) return undefined;
  const { stream, events } = document as { stream?: unknown; events?: unknown };
  if (Array.isArray(stream)) return stream as unknown[];
  if (Array.isArray(events)) return events as unknown[];
  return undefined;
}

/**
 * `JSON.parse` with an error that names where (`where`, then `line` when given: put together only
 * on failure), never what: V8's messages quote the offending text, which may be reasoning content,
 * so only the position is kept.
 */
function parseJson(text: string, where: string, line?: number): unknown {
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
    throw new InputError(`${where}${line !== undefined ? ` ${line}` : ""}: not valid JSON${detail}`);
  }
}

/** File-system and stream failures, in words (the path is the caller's to add). */
function readFailure(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory, not a file";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
