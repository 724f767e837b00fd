import { createReadStream } from "node:fs";
import type { Observable, Observer, Subscribable, Subscription } from "rxjs";
import type { Message } from "@ag-ui/core";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import type { ReasoningHistory } from "../history/types";
import { ReasoningProtocolError } from "../core/errors";
import { catalogued } from "../core/warning-codes";
import { reasoningPipeline } from "../pipeline/reasoning-pipeline";
import { version } from "../../package.json";
import { USAGE, UsageError, parseArgs, type CheckArgs } from "./args";
import { InputError, readRecording } from "./read-recording";
import { ReportBuilder } from "./run-report";
import { SourceTrail } from "./source-trail";
import { rawType } from "../core/json";
import { checkFailure, protocolFailure } from "./verdict";
import { countHistory, grouped, type CheckOutcome } from "./outcome";
import { renderReport, writeReport } from "./render";
import { renderJson } from "./render-json";
import { renderGithub } from "./render-github";
import { renderJunit } from "./render-junit";
import { renderSarif } from "./render-sarif";
import { StreamSecrets, type RedactOptions } from "./redact";
import { Progress } from "./progress";
import { DeepestEvent } from "./nesting";
import { TRANSPORT_LABEL, describeReply, liveSource, type Reply } from "./live-source";
import { printable as escaped } from "./printable";
import { Linter } from "./lint-rules";
import { connectionBroken } from "../integration/transport-end";

/** The process streams `agui-reasoning` talks to (injectable for tests). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stdin: AsyncIterable<Buffer | string>;
}

/** Exit codes: 0 valid, 1 protocol violation (or no run), 2 usage error or unusable input. */
export const EXIT = { valid: 0, violation: 1, unusable: 2 } as const;

/** Where the events come from. */
interface Source {
  readonly label: string;
  readonly events$: Observable<unknown>;
  format(): string | undefined;
  lineOf(index: number): number | undefined;
  readonly initialMessages: readonly Message[];
  /** A file is read to its end after a failure, to count its events; a live stream is not. */
  readonly drain: boolean;
  /** The live endpoint's reply. */
  reply(): Reply | undefined;
  /** What reading found beyond the events (R-TRANS-2): a recording cut inside an event, a broken connection. */
  sourceWarnings(events: number): ReasoningWarning[];
}

/** `agui-reasoning <argv…>`; resolves with the exit code. Never throws, never prints a stack trace. */
export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  let args: CheckArgs | "help" | "version";
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(escaped(`agui-reasoning: ${error.message}\n\n${USAGE}\n`));
    return EXIT.unusable;
  }
  if (args === "help") {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.valid;
  }
  if (args === "version") {
    io.stdout.write(`agui-reasoning ${version}\n`);
    return EXIT.valid;
  }
  try {
    return await check(args, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(
      escaped(
        `agui-reasoning: ${error instanceof InputError || error instanceof UsageError ? "" : "internal error: "}${message}\n`,
      ),
    );
    return EXIT.unusable;
  }
}

async function check(args: CheckArgs, io: CliIo): Promise<number> {
  const progress = new Progress(io.stderr, args.progress);
  const source = args.url !== undefined ? await urlSource(args, progress) : fileSource(args.file!, io, progress);

  const json = args.format === "json";
  // Only --json and --history print events and messages: only they need the stream's secrets and depth.
  const prints = json || args.history;
  const report = new ReportBuilder(args.showValues && args.format === "human");
  const trail = new SourceTrail();
  const secrets = prints ? new StreamSecrets() : undefined;
  const deepest = prints ? new DeepestEvent() : undefined;
  // Kept only for --json, which prints them all; the other formats keep counts (constant memory).
  const warnings: ReasoningWarning[] | undefined = json ? [] : undefined;
  const events: AguiEvent[] | undefined = json ? [] : undefined;
  const linted = (w: ReasoningWarning): void => {
    warnings?.push(w);
    report.onWarning(w);
  };
  const linter = new Linter(source.initialMessages, linted);
  const run = await runThrough(source, {
    onSourceEvent: (raw, index) => {
      const type = rawType(raw);
      trail.observe(raw, type);
      report.onSourceEvent(raw, type);
      linter.onSource(raw, index, type);
      secrets?.collect(raw);
      deepest?.observe(raw, index);
      if (args.url !== undefined) progress.update(index + 1, undefined);
    },
    onEvent: (e) => {
      report.onEvent(e);
      linter.onEvent(e);
      secrets?.assemble(e);
      events?.push(e);
    },
    onWarning: (w) => {
      warnings?.push(w);
      report.onWarning(w);
    },
  });
  const { failure, read } = run;
  progress.done();
  secrets?.flush();

  if (failure !== undefined && !(failure instanceof ReasoningProtocolError)) {
    if (failure instanceof InputError) throw new InputError(`${source.label}: ${failure.message}`);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- whatever a reader threw that is not an Error
    const message = failure instanceof Error ? failure.message : String(failure);
    throw new InputError(`could not read the stream from ${source.label}: ${message}`);
  }
  const reply = source.reply();
  if (reply !== undefined && read === 0)
    throw new InputError(`${source.label}: the reply holds no events: ${describeReply(reply)}`);

  const error = failure;
  // A run cut short is still linted to its end; after a violation the stream is not read further.
  if (error === undefined || error.code === "RUN_TRUNCATED") linter.end();
  if (error) report.onFailure(error.code);
  for (const w of source.sourceWarnings(read)) linted(w);
  const runs = report.all();
  const history = run.history;
  const outcome: CheckOutcome = {
    label: source.label,
    format: source.format(),
    totalEvents: run.total,
    totalKnown: run.totalKnown,
    runs,
    failure: error ? protocolFailure(error, trail, (i) => source.lineOf(i)) : undefined,
    warnings: runs.reduce((n, run) => n + run.warnings, 0),
    allWarnings: warnings,
    history,
    historyCounts: countHistory(history),
    lineOf: (index) => source.lineOf(index),
  };
  const final: CheckOutcome = { ...outcome, failure: outcome.failure ?? checkFailure(outcome, args) };

  const redaction: RedactOptions = { showValues: args.showValues, showReasoning: args.showReasoning, secrets };
  const exit = final.failure ? EXIT.violation : EXIT.valid;
  if (args.format === "human" && !args.history) {
    // Nothing nested is printed without --history (it cannot overflow the stack): the report is
    // written as it is made, in batches, each made printable (an unsafe character is one UTF-16 unit).
    const human = { showHistory: false, showValues: args.showValues, redaction };
    let batch: string[] = [];
    let size = 0;
    const flush = (): void => {
      io.stdout.write(escaped(batch.join("")));
      batch = [];
      size = 0;
    };
    writeReport(final, human, (piece) => {
      batch.push(piece);
      size += piece.length;
      if (size >= OUTPUT_BATCH) flush();
    });
    if (batch.length > 0) flush();
    return exit;
  }
  const output = printable(source, deepest, () => {
    switch (args.format) {
      case "json":
        return renderJson(final, events!, redaction);
      case "github":
        return renderGithub(final, args.file !== undefined && args.file !== "-" ? args.file : undefined);
      case "junit":
        return renderJunit(final);
      case "sarif":
        return renderSarif(final, args.file !== undefined && args.file !== "-" ? args.file : undefined);
      default:
        return renderReport(final, { showHistory: args.history, showValues: args.showValues, redaction });
    }
  });
  // JSON documents escape what they must themselves (SARIF's messages are escaped as annotations).
  io.stdout.write(args.format === "json" || args.format === "sarif" ? output : escaped(output));
  return exit;
}

/** Characters of the human report written at a time. */
const OUTPUT_BATCH = 1 << 18;

/** The check's history pace: longer than a run takes, so that a run's end is what publishes. */
const HISTORY_PACE_MS = 60_000;

/** What the pipeline made of a source: how it ended, how many events there were, the final history. */
interface PipelineRun {
  /** The error `events$` ended with, or `undefined` when it completed. */
  readonly failure: unknown;
  /** Source events the pipeline read. */
  readonly read: number;
  /** Source events in the input: for a file read to its end after a failure, else those read. */
  readonly total: number;
  /** Whether `total` counts the whole input. */
  readonly totalKnown: boolean;
  readonly history: ReasoningHistory;
}

interface RunObservers {
  onSourceEvent(raw: unknown, index: number): void;
  onEvent(event: AguiEvent): void;
  onWarning(warning: ReasoningWarning): void;
}

/**
 * Runs the source through the pipeline. The source feeds it through `feed`, so that after a
 * failure a file is still read to its end: the report counts the file's events, not those read
 * before the violation. A live stream is closed at the failure instead.
 */
async function runThrough(source: Source, observers: RunObservers): Promise<PipelineRun> {
  let read = 0;
  let total = 0;
  // The pipeline's source: what a Subject piped through a tap of `onSourceEvent` would be, without
  // their cost per event (a closure and an iterator per value, two subscribers deep). The pipeline
  // subscribes it once; once it let go (it failed), the rest of the file is only counted.
  let pipelineSide: Partial<Observer<unknown>> | undefined;
  const feed: Subscribable<unknown> = {
    subscribe(observer) {
      pipelineSide = observer;
      return { unsubscribe: () => (pipelineSide = undefined) };
    },
  };
  const pipeline = reasoningPipeline(feed, {
    producer: source.label,
    initialMessages: source.initialMessages,
    onWarning: () => {},
    historyPace: HISTORY_PACE_MS,
  });
  // The check reads only the final history. Paced (D-PACE) and listened to — an unheard history$
  // publishes at once, having nobody to wait for — the delta lane holds a message's text until a run
  // ends instead of making a conversation version per delta (a fifth of what `check` allocated,
  // issue 22); the final history is the one an unpaced pipeline gives (D-PACE).
  // eslint-disable-next-line rxjs-x/no-ignored-subscription -- history$ completes with events$, awaited below
  pipeline.history$.subscribe(() => {});
  // eslint-disable-next-line rxjs-x/no-ignored-subscription -- warnings$ completes with events$, awaited below
  pipeline.warnings$.subscribe((w) => observers.onWarning(w));
  const ended = new Promise<unknown>((resolve) => {
    // eslint-disable-next-line rxjs-x/no-ignored-subscription -- held until the pipeline ends: the check reads it all
    pipeline.events$.subscribe({
      next: (e) => observers.onEvent(e),
      error: (e: unknown) => resolve(e),
      complete: () => resolve(undefined),
    });
  });
  let reading: Subscription | undefined;
  const drained = new Promise<boolean>((resolve) => {
    reading = source.events$.subscribe({
      next: (e) => {
        total++;
        if (pipelineSide === undefined) return;
        observers.onSourceEvent(e, read++);
        pipelineSide.next?.(e);
      },
      error: (e: unknown) => {
        const side = pipelineSide;
        pipelineSide = undefined;
        side?.error?.(e);
        resolve(false);
      },
      complete: () => {
        const side = pipelineSide;
        pipelineSide = undefined;
        side?.complete?.();
        resolve(true);
      },
    });
  });
  const failure = await ended;
  if (failure === undefined) return { failure, read, total, totalKnown: true, history: pipeline.history };
  if (source.drain) {
    const totalKnown = await drained;
    return { failure, read, total, totalKnown, history: pipeline.history };
  }
  reading?.unsubscribe();
  return { failure, read, total: read, totalKnown: false, history: pipeline.history };
}

/**
 * The report `render` builds, or — when printing it overflows the call stack (JSON.stringify
 * recurses into every level of an event or message) — an `InputError` naming the most deeply nested
 * event, so the user learns which event cannot be printed rather than seeing an internal error.
 */
function printable(source: Source, deepest: DeepestEvent | undefined, render: () => string): string {
  try {
    return render();
  } catch (error) {
    if (!(error instanceof RangeError) || deepest?.index === undefined) throw error;
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
    reply: () => undefined,
    sourceWarnings: (events) => {
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

async function urlSource(args: CheckArgs, progress: Progress): Promise<Source> {
  const live = await liveSource(args.url!, args.input, args.accept);
  progress.update(0, undefined);
  return {
    label: args.url!,
    events$: live.events$,
    format: () => TRANSPORT_LABEL[live.transport() ?? args.accept],
    lineOf: () => undefined,
    initialMessages: live.initialMessages,
    drain: false,
    reply: () => live.reply(),
    sourceWarnings: (events) => {
      const reason = live.broken();
      return reason === undefined ? [] : [connectionBroken(events, reason, grouped(events))];
    },
  };
}
