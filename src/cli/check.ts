import { createReadStream } from "node:fs";
import { ReasoningProtocolError } from "../core/errors";
import { catalogued } from "../core/warning-codes";
import { version } from "../../package.json";
import { USAGE, UsageError, parseArgs, type CheckArgs } from "./args";
import { InputError, readRecording } from "./read-recording";
import { Inspection, type PipelineRun, type Source } from "./inspect";
import { writeReport } from "./render";
import { renderJson } from "./render-json";
import { renderGithub } from "./render-github";
import { renderJunit } from "./render-junit";
import { renderSarif } from "./render-sarif";
import type { RedactOptions } from "./redact";
import { Progress } from "./progress";
import { liveSource } from "./live-source";
import { printable as escaped } from "./printable";

/** The process streams `agui-reasoning` talks to (injectable for tests). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stdin: AsyncIterable<Buffer | string>;
}

/** Exit codes: 0 valid, 1 protocol violation (or no run), 2 usage error or unusable input. */
export const EXIT = { valid: 0, violation: 1, unusable: 2 } as const;

/** `agui-reasoning <argv…>`; resolves with the exit code. Never throws, never prints a stack trace. */
export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const args = parseArgs(argv);
    if (args !== "help" && args !== "version") return await check(args, io);
    io.stdout.write(args === "help" ? `${USAGE}\n` : `agui-reasoning ${version}\n`);
    return EXIT.valid;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(escaped(`agui-reasoning: ${error.message}\n\n${USAGE}\n`));
      return EXIT.unusable;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(escaped(`agui-reasoning: ${error instanceof InputError ? "" : "internal error: "}${message}\n`));
    return EXIT.unusable;
  }
}

async function check(args: CheckArgs, io: CliIo): Promise<number> {
  const progress = new Progress(io.stderr, args.progress);
  const source =
    args.url !== undefined ? await liveSource(args.url, args.input, args.accept) : fileSource(args.file!, io, progress);
  if (args.url !== undefined) progress.update(0, undefined);
  const json = args.format === "json";
  const inspection = new Inspection(source, {
    keepAllValues: args.showValues && args.format === "human",
    keepAll: json,
    prints: json || args.history,
    onRead: args.url !== undefined ? (read) => progress.update(read, undefined) : undefined,
  });
  const pipelineOptions = { producer: source.label, historyPace: HISTORY_PACE_MS };
  const run = await new Promise<PipelineRun>((resolve) => inspection.run(pipelineOptions, resolve));
  progress.done();

  const { failure } = run;
  if (failure !== undefined && !(failure instanceof ReasoningProtocolError)) {
    if (failure instanceof InputError) throw new InputError(`${source.label}: ${failure.message}`);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever a reader threw that is not an Error
    const message = failure instanceof Error ? failure.message : String(failure);
    throw new InputError(`could not read the stream from ${source.label}: ${message}`);
  }
  const final = inspection.outcome(run, args);

  const { secrets, deepest } = inspection;
  const redaction: RedactOptions = { showValues: args.showValues, showReasoning: args.showReasoning, secrets };
  const exit = final.failure ? EXIT.violation : EXIT.valid;
  if (args.format === "human") {
    // The report is written as it is made, in batches, each made printable (an unsafe character is one
    // UTF-16 unit); with --history it is held whole, as printing a message may overflow the stack.
    const limit = args.history ? Infinity : OUTPUT_BATCH;
    const human = { showHistory: args.history, redaction };
    let batch: string[] = [];
    let size = 0;
    const flush = (): void => {
      io.stdout.write(escaped(batch.join("")));
      batch = [];
      size = 0;
    };
    printable(source, deepest, () =>
      writeReport(final, human, (piece) => {
        batch.push(piece);
        size += piece.length;
        if (size >= limit) flush();
      }),
    );
    if (batch.length > 0) flush();
    return exit;
  }
  const file = args.file !== "-" ? args.file : undefined;
  const renderers = {
    json: () => renderJson(final, inspection.events!, redaction),
    github: () => renderGithub(final, file),
    junit: () => renderJunit(final),
    sarif: () => renderSarif(final, file),
  };
  const output = printable(source, deepest, renderers[args.format]);
  // JSON documents escape what they must themselves (SARIF's messages are escaped as annotations).
  io.stdout.write(args.format === "json" || args.format === "sarif" ? output : escaped(output));
  return exit;
}

/** Characters of the human report written at a time. */
const OUTPUT_BATCH = 1 << 18;

/** The check's history pace: longer than a run takes, so that a run's end is what publishes. */
const HISTORY_PACE_MS = 60_000;

/**
 * The report `render` builds, or — when printing it overflows the call stack (JSON.stringify
 * recurses into every level of an event or message) — an `InputError` naming the most deeply nested
 * event, so the user learns which event cannot be printed rather than seeing an internal error.
 */
function printable<T>(source: Source, deepest: Inspection["deepest"], render: () => T): T {
  try {
    return render();
  } catch (error) {
    if (!(error instanceof RangeError) || deepest === undefined) throw error;
    const line = source.lineOf(deepest.index);
    throw new InputError(
      `event #${deepest.index}${line !== undefined ? ` (line ${line})` : ""} of ${source.label} is nested ${deepest.depth.toLocaleString("en-US")} levels deep, ` +
        "too deep to print with --json or --history; check it without them",
    );
  }
}

function fileSource(file: string, io: CliIo, progress: Progress): Source {
  const stdin = file === "-";
  const recording = readRecording(stdin ? io.stdin : createReadStream(file), {
    onProgress: (events, bytes) => progress.update(events, bytes),
  });
  return {
    label: stdin ? "stdin" : file,
    events$: recording.events$,
    format: () => recording.format,
    lineOf: (i) => recording.lineOf(i),
    initialMessages: [],
    drain: true,
    ended: (events) => {
      const cut = recording.cut;
      if (cut === undefined) return [];
      return [
        catalogued("RECORDING_CUT", "R-TRANS-2", {
          message:
            `the recording ends inside its last ${cut.unit} (line ${cut.line}), which is not complete JSON: ` +
            "the recording was cut there, and that event is lost",
          eventType: "<end of stream>",
          eventIndex: events,
        }),
      ];
    },
  };
}
