import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { tap, type Observable } from "rxjs";
import type { Message, RunAgentInput } from "@ag-ui/core";
import type { AguiEvent, ReasoningWarning } from "../core/types";
import { ReasoningProtocolError } from "../core/errors";
import { reasoningPipeline } from "../pipeline/reasoning-pipeline";
import { agentEvents } from "../integration/agent-events";
import { USAGE, UsageError, parseArgs, type CheckArgs } from "./args";
import { InputError, readRecording } from "./read-recording";
import { ReportBuilder } from "./run-report";
import { renderReport } from "./render";
import { redactValues } from "./redact";
import { Progress } from "./progress";
import { DeepestEvent } from "./nesting";

/** The process streams `agui-reasoning` talks to (injectable for tests). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stdin: AsyncIterable<Buffer | string>;
}

/** Exit codes: 0 valid, 1 protocol violation, 2 usage error or unreadable input. */
export const EXIT = { valid: 0, violation: 1, unusable: 2 } as const;

/** Where the events come from. */
interface Source {
  readonly label: string;
  readonly events$: Observable<unknown>;
  format(): string | undefined;
  lineOf(index: number): number | undefined;
  readonly initialMessages: readonly Message[];
}

/** `agui-reasoning <argv…>`; resolves with the exit code. Never throws, never prints a stack trace. */
export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  let args: CheckArgs | "help";
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`agui-reasoning: ${error.message}\n\n${USAGE}\n`);
    return EXIT.unusable;
  }
  if (args === "help") {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.valid;
  }
  try {
    return await check(args, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`agui-reasoning: ${error instanceof InputError || error instanceof UsageError ? "" : "internal error: "}${message}\n`);
    return EXIT.unusable;
  }
}

async function check(args: CheckArgs, io: CliIo): Promise<number> {
  const progress = new Progress(io.stderr, args.progress);
  const source = args.url !== undefined ? await liveSource(args.url, args.input, progress) : fileSource(args.file!, io, progress);

  const report = new ReportBuilder();
  const warnings: ReasoningWarning[] = [];
  // Validated events, kept only for --json (a long recording would otherwise sit in memory).
  const events: AguiEvent[] = [];
  let read = 0;
  // Only the printing modes stringify whole events and messages, which hostile nesting can overflow.
  const deepest = args.json || args.history ? new DeepestEvent() : undefined;
  const pipeline = reasoningPipeline(
    source.events$.pipe(
      tap((raw) => {
        read++;
        report.onSourceEvent(raw);
        deepest?.observe(raw, read - 1);
        if (args.url !== undefined) progress.update(read, undefined);
      }),
    ),
    { producer: source.label, initialMessages: source.initialMessages, onWarning: () => {} },
  );
  // eslint-disable-next-line rxjs-x/no-ignored-subscription -- warnings$ completes with events$, awaited below
  pipeline.warnings$.subscribe((w) => {
    warnings.push(w);
    report.onWarning(w);
  });
  const failure = await new Promise<unknown>((resolve) => {
    // eslint-disable-next-line rxjs-x/no-ignored-subscription -- held until the source ends: the check reads it all
    pipeline.events$.subscribe({
      next: (e) => {
        report.onEvent(e);
        if (args.json) events.push(e);
      },
      error: (e: unknown) => resolve(e),
      complete: () => resolve(undefined),
    });
  });
  progress.done();

  if (failure !== undefined && !(failure instanceof ReasoningProtocolError)) {
    if (failure instanceof InputError) throw new InputError(`${source.label}: ${failure.message}`);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a thrown non-Error is shown as String() gives it
    const message = failure instanceof Error ? failure.message : String(failure);
    throw new InputError(`could not read the stream from ${source.label}: ${message}`);
  }
  const error = failure;
  if (error) report.onFailure(error.code);
  const history = pipeline.history;

  const shown = <T>(x: T): T => (args.showValues ? x : redactValues(x));
  const output = printable(source, deepest, () => {
    if (!args.json) {
      return renderReport({
        label: source.label,
        format: source.format(),
        events: read,
        runs: report.all(),
        error,
        errorLine: error ? source.lineOf(error.eventIndex) : undefined,
        history,
        showHistory: args.history,
        showValues: args.showValues,
      });
    }
    const result = {
      outcome: error ? "failed" : "completed",
      error: error ? { code: error.code, rule: error.rule, eventIndex: error.eventIndex, message: error.message } : null,
      warnings,
      events: shown(events),
      history: { messages: shown(history.messages), incomplete: history.incomplete },
    };
    return `${JSON.stringify(result, null, 2)}\n`;
  });
  io.stdout.write(output);
  return error ? EXIT.violation : EXIT.valid;
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
  };
}

/** `--url`: one run of a live agent through a real `HttpAgent` (an optional dependency, loaded on demand). */
async function liveSource(url: string, inputFile: string | undefined, progress: Progress): Promise<Source> {
  const input = await runInput(inputFile);
  let client: typeof import("@ag-ui/client");
  try {
    // A variable specifier keeps bundlers from inlining the client: it stays an optional dependency.
    const specifier = "@ag-ui/client";
    client = (await import(specifier)) as typeof import("@ag-ui/client");
  } catch {
    throw new InputError("--url needs @ag-ui/client: npm install @ag-ui/client");
  }
  const agent = new client.HttpAgent({ url });
  progress.update(0, undefined);
  return {
    label: url,
    events$: agentEvents(agent, input),
    format: () => "SSE over HTTP",
    lineOf: () => undefined,
    initialMessages: input.messages,
  };
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
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InputError(`--input ${file}: must be a JSON object (a RunAgentInput)`);
  }
  const merged = { ...base, ...(parsed as Partial<RunAgentInput>) };
  if (!Array.isArray(merged.messages)) throw new InputError(`--input ${file}: "messages" must be an array`);
  return merged;
}
