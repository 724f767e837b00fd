import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { described } from "./arguments";

/**
 * The recorded example streams shipped with the kit (`examples/recorded/*.jsonl` in the repository,
 * `dist/recorded/` in the package): name → what it shows. Hand-written in the shapes common
 * producers emit (not captures of any vendor's traffic); see examples/recorded/README.md.
 */
export const RECORDINGS = {
  "anthropic-style-thinking":
    "chunked thinking in a span, its signature as an encrypted value on the reasoning message, a tool call and result, a redacted block on the answer",
  "openai-style-reasoning-summary":
    "two explicit reasoning summary messages in one span, encrypted content on the first, a chunked answer",
  "gemini-style-thought-signatures":
    "chunked thought without a span, a thought signature on a chunked tool call, a chunked answer",
  "legacy-thinking-0.0.45": "a 0.x producer's THINKING_* events (no ids, a title), upcast to REASONING_*",
  "parallel-subagents": "two subagents streaming tagged reasoning chunks in parallel lanes, closed by their terminals",
  "two-runs-with-snapshot":
    "two runs; a MESSAGES_SNAPSHOT without reasoning messages keeps the first run's reasoning and its value",
  "broken-orphan-content":
    "a producer sending a reasoning delta after REASONING_MESSAGE_END: fails with ORPHAN_CONTENT at event #5",
  "truncated-mid-reasoning":
    "the stream ends inside an open run: fails with RUN_TRUNCATED, history keeps the partial reasoning",
} as const;

export type RecordingName = keyof typeof RECORDINGS;

/**
 * Parses a recording: JSON Lines (one event per line, blank lines skipped) or a JSON array. A bad line throws an error
 * naming the line number (a bad array: saying so), never its content (D-REDACT).
 */
export function parseRecording(text: string): unknown[] {
  if (typeof text !== "string") {
    const given: unknown = text;
    // ArrayBuffer.isView reads no property (a revoked proxy throws on `instanceof`).
    const got = ArrayBuffer.isView(given) ? "bytes" : given === null ? "null" : typeof given;
    throw new TypeError(
      `agui-reasoning/testing: parseRecording takes the recording's text, got ${got} (read it as "utf8")`,
    );
  }
  const trimmed = text.replace(/^\uFEFF/, "").trimStart();
  if (trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed) as unknown[];
    } catch {
      // JSON.parse's own message quotes the text around the fault: reasoning text, values (D-REDACT).
      throw new Error("agui-reasoning/testing: recording is not a JSON array");
    }
  }
  const events: unknown[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      throw new Error(`agui-reasoning/testing: recording line ${i + 1} is not JSON`);
    }
  }
  return events;
}

/** The events of a shipped recording, e.g. `loadRecording("anthropic-style-thinking")`. A fresh copy per call. */
export function loadRecording(name: RecordingName): unknown[] {
  // A name that is no string is not made one (a sparse array's text is 2³²−1 commas).
  if (typeof name !== "string" || !Object.hasOwn(RECORDINGS, name)) {
    throw new Error(
      `agui-reasoning/testing: no recording named ${typeof name === "string" ? JSON.stringify(name) : `(${described(name)})`} (known: ${Object.keys(RECORDINGS).join(", ")})`,
    );
  }
  return parseRecording(readFileSync(join(recordingsDirectory(), `${name}.jsonl`), "utf8"));
}

/**
 * Where the recordings are: `recorded/` beside the built bundle (the package), else the repository's
 * `examples/recorded/` (running from source).
 */
export function recordingsDirectory(): string {
  const candidates = [join(__dirname, "recorded"), join(__dirname, "..", "..", "examples", "recorded")];
  for (const dir of candidates) if (existsSync(join(dir, "anthropic-style-thinking.jsonl"))) return dir;
  throw new Error(`agui-reasoning/testing: recordings not found (looked in ${candidates.join(", ")})`);
}
