/**
 * D-WARN-SINK: `console.warn` is the default sink only while no `onWarning` is given and nobody
 * subscribes to `warnings$`; lossy warnings still reach whoever listens.
 */
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import { reasoningPipeline, type ReasoningWarning } from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { runInput } from "../support/http-run";

// One non-lossy warning (a stripped property) and one lossy (a value naming no message).
const stream = [
  ev.runStarted(),
  { ...ev.textStart("a1"), extra: 1 },
  ev.textEnd("a1"),
  ev.encryptedValue("message", "nowhere", "v"),
  ev.runFinished(),
];

let printed: jest.SpyInstance;
beforeEach(() => {
  printed = jest.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => printed.mockRestore());

const printedCodes = (): string[] => printed.mock.calls.map((args) => String(args[0]).split(" ")[1]!);

async function runFacade(options: Parameters<typeof reasoningPipeline>[1], listen: boolean) {
  const pipeline = reasoningPipeline(from(stream), options);
  const heard: ReasoningWarning[] = [];
  if (listen) pipeline.warnings$.subscribe((w) => heard.push(w));
  await lastValueFrom(pipeline.events$.pipe(toArray()));
  return heard.map((w) => w.code);
}

async function runMiddleware(options: Omit<Parameters<typeof reasoningMiddleware>[0], "producer">, listen: boolean) {
  const middleware = reasoningMiddleware({ producer: "P", ...options });
  const heard: ReasoningWarning[] = [];
  if (listen) middleware.warnings$.subscribe((w) => heard.push(w));
  const next = { run: (_: RunAgentInput) => from(stream) };
  await lastValueFrom((middleware(runInput(), next) as Observable<unknown>).pipe(toArray()));
  return heard.map((w) => w.code);
}

const BOTH = ["STRIPPED_PROPERTY", "UNKNOWN_ENTITY"];

describe.each([
  ["reasoningPipeline", runFacade],
  ["reasoningMiddleware", runMiddleware],
] as const)("D-WARN-SINK %s", (_name, run) => {
  it("D-WARN-SINK with nobody listening, console.warn prints each warning once", async () => {
    expect(await run({}, false)).toEqual([]);
    expect(printedCodes()).toEqual(BOTH);
  });

  it("D-WARN-SINK a warnings$ subscriber gets each warning once, and console.warn prints none", async () => {
    expect(await run({}, true)).toEqual(BOTH);
    expect(printed).not.toHaveBeenCalled();
  });

  it("D-WARN-SINK an onWarning gets each warning once, also beside a warnings$ subscriber; console.warn prints none", async () => {
    const custom: string[] = [];
    expect(await run({ onWarning: (w) => custom.push(w.code) }, true)).toEqual(BOTH);
    expect(custom).toEqual(BOTH);
    expect(printed).not.toHaveBeenCalled();
  });

  it("D-WARN-SINK R-VER-7 quiet: the lossy warning still reaches the listener, and console.warn when nobody listens", async () => {
    expect(await run({ quiet: true }, true)).toEqual(expect.arrayContaining(["UNKNOWN_ENTITY"]));
    expect(printed).not.toHaveBeenCalled();
    expect(await run({ quiet: true }, false)).toEqual([]);
    expect(printedCodes()).toEqual(["UNKNOWN_ENTITY"]);
  });
});
