/**
 * The redaction scan (issue 6, "Redaction and confidentiality"; D-REDACT, R-REASON-25/26): every
 * error and warning the pipeline produces over every stream gathered here — the conformance corpus,
 * the recorded examples, the saved regressions, one stream per error and warning code, the hostile
 * streams and a few thousand generated, mutated streams — rendered as a program or a log would see
 * it (message, String, stack, JSON, util.inspect, the console line) contains no delta, reasoning
 * text, title or encrypted value of the input.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { CHECK_WARNING_CODES } from "../support/check-warning-codes";
import { join, resolve } from "node:path";
import { CORPUS_DIR } from "../conformance/fixture";
import fc from "fast-check";
import { ERROR_CODES, ReasoningProtocolError } from "../../src/core/errors";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { ev } from "../../src/testing/builders";
import {
  deepStream,
  HOSTILE_IDS,
  NON_OBJECTS,
  UNREADABLE,
  chunkStreamWithId,
  reasoningStreamWithId,
  SECRETS,
  toolStreamWithId,
  violationsWithId,
} from "../hostile/support/streams";
import { errorStreams, optInStreams, warningStreams } from "./code-streams";
import { generatedCase } from "./generated";
import {
  errorTexts,
  leaksIn,
  MARK,
  scanOptInStream,
  scanStream,
  secretsOf,
  warningTexts,
  withMarkers,
  type Leak,
  type ScanResult,
} from "./scan";
import { from } from "rxjs";
import { downcastToThinking } from "../../src/downcast/downcast-thinking";
import { repairStream } from "../../src/repair/repair-stream";
import { WARNING_CODES } from "../../src/core/warning-codes";
import { saveHistory } from "../../src/storage/history-store";
import { InMemoryHistoryStore } from "../../src/storage/in-memory-store";

const ROOT = resolve(__dirname, "../..");
const CORPUS = CORPUS_DIR;
const RECORDED = join(ROOT, "examples/recorded");
const REGRESSIONS = join(ROOT, "test/regressions");

/** Codes seen across the whole scan, for the coverage checks at the end. */
/** The codes of the opt-in stages: repairStream's and downcastToThinking's. */
const OPT_IN_CODES = Object.keys(WARNING_CODES).filter((c) => c.startsWith("REPAIRED_") || c.startsWith("DOWNCAST_"));

const seen = { errors: new Set<string>(), warnings: new Set<string>(), streams: 0 };

function scan(
  name: string,
  ...args: Parameters<typeof scanStream> extends [string, ...infer Rest] ? Rest : never
): ScanResult {
  return record(scanStream(name, ...args));
}

function record(result: ScanResult): ScanResult {
  seen.streams++;
  if (result.errorCode !== undefined) seen.errors.add(result.errorCode);
  for (const code of result.warningCodes) seen.warnings.add(code);
  return result;
}

async function scanOptIn(...args: Parameters<typeof scanOptInStream>): Promise<ScanResult> {
  return record(await scanOptInStream(...args));
}

/** Leaks, and anything thrown that is not a ReasoningProtocolError, named by stream. */
function problems(results: readonly ScanResult[]): (Leak | { foreign: string })[] {
  return results.flatMap((r) => [
    ...r.leaks,
    ...(r.foreignError === undefined
      ? []
      : [
          {
            foreign:
              r.foreignError instanceof Error
                ? `${r.foreignError.name}: ${r.foreignError.message}`
                : String(r.foreignError),
          },
        ]),
  ]);
}

interface Stream {
  readonly name: string;
  readonly events: unknown[];
  readonly initialMessages?: unknown[];
}

function corpusStreams(): Stream[] {
  return readdirSync(CORPUS)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const fixture = JSON.parse(readFileSync(join(CORPUS, f), "utf8")) as {
        stream: unknown[];
        input?: { messages?: unknown[] };
      };
      return {
        name: `corpus/${f}`,
        events: fixture.stream,
        ...(fixture.input?.messages && { initialMessages: fixture.input.messages }),
      };
    });
}

function recordedStreams(): Stream[] {
  if (!existsSync(RECORDED)) return [];
  return readdirSync(RECORDED)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => ({
      name: `recorded/${f}`,
      events: readFileSync(join(RECORDED, f), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as unknown),
    }));
}

function regressionStreams(): Stream[] {
  if (!existsSync(REGRESSIONS)) return [];
  return readdirSync(REGRESSIONS)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const saved = JSON.parse(readFileSync(join(REGRESSIONS, f), "utf8")) as {
        events: unknown[];
        initialMessages?: unknown[];
      };
      return {
        name: `regressions/${f}`,
        events: saved.events,
        ...(saved.initialMessages && { initialMessages: saved.initialMessages }),
      };
    });
}

/**
 * Scans a recorded stream with every content string replaced by a marker (so that short content is
 * searchable too), and as it is: there a content string that also occurs in the marker run's
 * renderings is the package's own vocabulary ("reasoning message"), not a leak. Both runs must reach
 * the same verdict, which shows the markers changed nothing but the content.
 */
function scanBothWays(stream: Stream): ScanResult[] {
  const options = (initial: unknown[] | undefined) =>
    initial === undefined ? {} : { initialMessages: initial as never };
  const marked = scan(
    `${stream.name} (markers)`,
    withMarkers(stream.events, "s"),
    options(stream.initialMessages && withMarkers(stream.initialMessages, "i")),
  );
  const vocabulary = marked.texts.map((t) => t.text).join("\n");
  const content = secretsOf([...stream.events, ...(stream.initialMessages ?? [])]);
  const secrets = new Set([...content].filter((secret) => !vocabulary.includes(secret)));
  const original = scan(stream.name, stream.events, options(stream.initialMessages), secrets);
  expect({ stream: stream.name, error: marked.errorCode, warnings: marked.warningCodes }).toEqual({
    stream: stream.name,
    error: original.errorCode,
    warnings: original.warningCodes,
  });
  return [original, marked];
}

describe("D-REDACT: the scan itself", () => {
  it("D-REDACT: content planted in an error detail, an id list or a warning message is found (the scan can fail)", () => {
    const planted = `${MARK}planted-Rt5Yu8Io`;
    const error = new ReasoningProtocolError({
      code: "ORPHAN_CONTENT",
      rule: "R-REASON-9",
      eventIndex: 1,
      eventType: "X",
      detail: `saw ${planted}`,
    });
    expect(leaksIn("e", errorTexts(error), new Set([planted])).map((l) => l.where)).toEqual(
      expect.arrayContaining(["error.message", "String(error)", "error.stack", "util.inspect(error)"]),
    );
    const listed = new ReasoningProtocolError({
      code: "ORPHAN_CONTENT",
      rule: "R-REASON-9",
      eventIndex: 1,
      eventType: "X",
      ids: ["plain-secret-text"],
      detail: "",
    });
    expect(leaksIn("e", errorTexts(listed), new Set(["plain-secret-text"])).length).toBeGreaterThan(0);
    const warning = { code: "UNKNOWN_ENTITY" as const, message: `truncated ${planted.slice(0, 5)}` };
    expect(leaksIn("w", warningTexts(warning), new Set()).map((l) => l.where)).toEqual([
      "warning UNKNOWN_ENTITY (JSON)",
      "warning UNKNOWN_ENTITY (console line)",
    ]);
  });
});

describe("D-REDACT: recorded streams", () => {
  it("D-REDACT: the conformance corpus, as it is and with marker content, leaks nothing into errors or warnings", () => {
    const streams = corpusStreams();
    expect(streams.length).toBeGreaterThan(60);
    expect(problems(streams.flatMap(scanBothWays))).toEqual([]);
  });

  it("D-REDACT: the recorded examples leak nothing into errors or warnings", () => {
    const streams = recordedStreams();
    expect(problems(streams.flatMap(scanBothWays))).toEqual([]);
  });

  it("D-REDACT: the saved regressions leak nothing into errors or warnings", () => {
    const streams = regressionStreams();
    expect(problems(streams.flatMap(scanBothWays))).toEqual([]);
  });
});

describe("D-REDACT: one stream per error and warning code", () => {
  it.each(errorStreams().map((s, i) => ({ ...s, name: `${s.code} #${i}` })))(
    "D-REDACT: $name fails with its code and shows none of its content",
    ({ name, code, events, options }) => {
      const result = scan(name, events, options);
      expect(result.errorCode).toBe(code);
      expect(problems([result])).toEqual([]);
    },
  );

  it.each(warningStreams().map((s, i) => ({ ...s, name: `${s.code} #${i}` })))(
    "D-REDACT: $name warns with its code and shows none of its content",
    ({ name, code, events, options }) => {
      const result = scan(name, events, options);
      expect(result.warningCodes).toContain(code);
      expect(problems([result])).toEqual([]);
    },
  );

  it("D-REDACT: the event rides on an error for programs only: not enumerable, absent from JSON and util.inspect", () => {
    const delta = `${MARK}event-delta-Vb6Nz2Lq`;
    let error: unknown;
    reasoningPipeline(from([ev.runStarted(), ev.reasoningMessageContent("ghost", delta)])).events$.subscribe({
      error: (e: unknown) => (error = e),
    });
    expect((error as { event: { delta: string } }).event.delta).toBe(delta);
    expect(Object.keys(error as object)).not.toContain("event");
    for (const { where, text } of errorTexts(error))
      expect({ where, leaked: text.includes(delta) }).toEqual({ where, leaked: false });
  });

  it("D-REDACT: the default console sink prints warnings without their content", () => {
    const lines: string[] = [];
    const spy = jest.spyOn(console, "warn").mockImplementation((line: string) => void lines.push(line));
    try {
      for (const { events } of warningStreams()) reasoningPipeline(from(events)).events$.subscribe({ error: () => {} });
    } finally {
      spy.mockRestore();
    }
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((line) => line.includes(MARK))).toEqual([]);
  });
});

describe("D-REDACT: the opt-in stages (repairStream, downcastToThinking, saveHistory)", () => {
  it.each(optInStreams().map((s, i) => ({ ...s, name: `${s.stage} ${s.code} #${i}` })))(
    "D-REDACT R-VER-6: $name produces its code and shows none of its content",
    async ({ name, stage, kind, code, events }) => {
      const result = await scanOptIn(name, stage, events);
      if (kind === "error") expect(result.errorCode).toBe(code);
      else
        expect({ error: result.errorCode, warned: result.warningCodes.includes(code) }).toEqual({
          error: undefined,
          warned: true,
        });
      expect(problems([result])).toEqual([]);
    },
  );

  it("R-VER-7 D-REDACT: their lossy warnings reach the default sink even under quiet, printed without content", async () => {
    const lines: string[] = [];
    const spy = jest.spyOn(console, "warn").mockImplementation((line: string) => void lines.push(line));
    const codes = new Set<string>();
    try {
      for (const { stage, events } of optInStreams()) {
        const source = stage === "repairStream" ? from(events).pipe(repairStream({ quiet: true })) : from(events);
        const pipeline = reasoningPipeline(source, { onWarning: () => {} });
        const output =
          stage === "downcastToThinking"
            ? pipeline.events$.pipe(downcastToThinking({ quiet: true }))
            : pipeline.events$;
        output.subscribe({ error: () => {} });
        if (stage === "saveHistory")
          await saveHistory(new InMemoryHistoryStore({ encryptedValues: false }), "t1", pipeline.history, {
            quiet: true,
          });
      }
    } finally {
      spy.mockRestore();
    }
    for (const line of lines) codes.add(/^\[agui-reasoning\] ([A-Z_]+)/.exec(line)?.[1] ?? line);
    // REPAIRED_CLOSED_AT_FINISH loses nothing (only ENDs are added): quiet silences it. Every other one is lossy.
    expect([...codes].sort()).toEqual(
      [...OPT_IN_CODES.filter((c) => c !== "REPAIRED_CLOSED_AT_FINISH"), "VALUE_NOT_STORED"].sort(),
    );
    expect(lines.filter((line) => line.includes(MARK))).toEqual([]);
  });
});

describe("D-REDACT: hostile streams", () => {
  it("D-REDACT: streams under hostile ids, their violations, non-objects, unreadable and deep events leak nothing", () => {
    const results: ScanResult[] = [];
    const secrets = new Set<string>(Object.values(SECRETS));
    for (const { label, id } of HOSTILE_IDS) {
      for (const [kind, events] of [
        ["reasoning", reasoningStreamWithId(id)],
        ["tools", toolStreamWithId(id)],
        ["chunks", chunkStreamWithId(id)],
      ] as const) {
        results.push(scan(`id ${label} ${kind}`, events, {}, secrets));
      }
      for (const { code, events } of violationsWithId(id))
        results.push(scan(`id ${label} ${code}`, events, {}, secrets));
    }
    for (const { label, value } of [...NON_OBJECTS, ...UNREADABLE]) {
      results.push(
        scan(
          `non-object ${label}`,
          [ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", SECRETS.thought), value()],
          {},
          secrets,
        ),
      );
    }
    results.push(scan("deep values", deepStream(1_000), {}, secrets));
    expect(problems(results)).toEqual([]);
    expect(results.filter((r) => r.errorCode === "MALFORMED_EVENT").length).toBe(
      NON_OBJECTS.length + UNREADABLE.length,
    );
  });
});

describe("D-REDACT: generated streams", () => {
  const RUNS = Number(process.env.REDACTION_RUNS ?? 3_000);
  const SEED = Number(process.env.REDACTION_SEED ?? Date.now() % 2_147_483_647);

  it(`D-REDACT R-REASON-25/26: ${RUNS} generated and mutated streams leak no marker into any error or warning`, () => {
    const errors = new Map<string, number>();
    const warnings = new Set<string>();
    fc.assert(
      fc.property(generatedCase, (c) => {
        const options = {
          ...(c.maxOpenItems !== undefined && { maxOpenItems: c.maxOpenItems }),
          ...(c.initialMessages && { initialMessages: c.initialMessages }),
        };
        const result = scan("generated", c.events, options);
        errors.set(result.errorCode ?? "none", (errors.get(result.errorCode ?? "none") ?? 0) + 1);
        for (const code of result.warningCodes) warnings.add(code);
        // Markers are the only content of these streams: any `§` in a rendering is a leak.
        expect(problems([result])).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // The generator reaches deep into the pipeline: many error codes, many warning codes, and valid streams too.
    expect({
      seed: SEED,
      errorCodes: errors.size >= 10,
      warningCodes: warnings.size >= 10,
      valid: (errors.get("none") ?? 0) > RUNS / 20,
    }).toEqual({
      seed: SEED,
      errorCodes: true,
      warningCodes: true,
      valid: true,
    });
  });
});

describe("D-REDACT: coverage of the scan", () => {
  it("D-REDACT: every error code of ERROR_CODES was produced and scanned", () => {
    expect(Object.keys(ERROR_CODES).filter((code) => !seen.errors.has(code))).toEqual([]);
  });

  it("D-REDACT: every warning code of WARNING_CODES and every error code the sources name, the opt-in stages' included, was produced and scanned", () => {
    const named = new Set<string>();
    for (const dir of [
      "upcast",
      "schema",
      "chunks",
      "discipline",
      "history",
      "pipeline",
      "core",
      "repair",
      "downcast",
    ]) {
      for (const file of readdirSync(join(ROOT, "src", dir)).filter((f) => f.endsWith(".ts"))) {
        const source = readFileSync(join(ROOT, "src", dir, file), "utf8");
        for (const m of source.matchAll(/\bcode:\s*"([A-Z][A-Z_]+)"|\bcode = "([A-Z][A-Z_]+)"/g))
          named.add((m[1] ?? m[2])!);
      }
    }
    // Warnings: the catalogue (every warning is built from it). Errors: the pipeline's, and DowncastError's
    // (`readonly code = "NOT_REPRESENTABLE"`).
    // The check's own reading warnings (a cut recording, a broken connection) come from no stage: their
    // messages are the check's (test/integration/cli-robustness.test.ts pins them; they name counts only).
    const checkCodes = new Set(["RECORDING_CUT", "CONNECTION_BROKEN"]);
    const warningCodes = Object.keys(WARNING_CODES).filter((code) => !checkCodes.has(code));
    expect(warningCodes.length).toBeGreaterThanOrEqual(25);
    // The check's own codes are emitted and scanned by the CLI's tests (test/support/check-warning-codes.ts).
    expect(warningCodes.filter((code) => !seen.warnings.has(code) && !CHECK_WARNING_CODES.has(code))).toEqual([]);
    const errorCodes = new Set<string>([...Object.keys(ERROR_CODES), "NOT_REPRESENTABLE"]);
    expect([...named].filter((code) => !errorCodes.has(code) && !(code in WARNING_CODES))).toEqual([]);
    expect([...errorCodes].filter((code) => !seen.errors.has(code))).toEqual([]);
    expect(named.has("NOT_REPRESENTABLE")).toBe(true);
    expect(seen.streams).toBeGreaterThan(3_000);
  });
});
