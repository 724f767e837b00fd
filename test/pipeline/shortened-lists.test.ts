/**
 * D-EVENT-INDEX: a warning's `path` and `eventIndex` open the recording at the spot. Enforcement
 * removes a list element it does not recognise (R-PROC-11: a message with a role 1.0 does not
 * describe, a patch operation it does not name), so the later stages read a shorter list; what they
 * name inside it is still the element's position in the event as the source delivered it, on every
 * path. Before, the history named the copy it dropped at its position in the shortened list: the
 * element before it in the recording.
 */
import { from, lastValueFrom, map, toArray, type Observable, type OperatorFunction } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  reasoningPipeline,
  upcastThinking,
  verifyDiscipline,
  type ReasoningWarning,
} from "../../src";
import { reasoningMiddleware } from "../../src/integration/http-agent-middleware";
import { ev } from "../../src/testing/builders";
import { check, jsonl, useTempFiles } from "../integration/cli-support";
import { runInput } from "../support/http-run";

const alien = { id: "x", role: "alien", content: "?" };

/** A snapshot whose first message enforcement removes, and that lists "a" twice (the last copy stays). */
const snapshot = [
  ev.runStarted(),
  {
    type: "MESSAGES_SNAPSHOT",
    messages: [alien, { id: "a", role: "assistant", content: "1" }, { id: "a", role: "assistant", content: "2" }],
  },
  ev.runFinished(),
];

/** What the source event held: the alien at 0, the copies of "a" at 1 and 2. */
const SNAPSHOT_WARNINGS = [
  ["UNKNOWN_UNION_MEMBER", "/messages/0", 1],
  ["DUPLICATE_MESSAGE_ID", "/messages/1", 1],
];
const SNAPSHOT_DROPPED = "the copy at /messages/1 was dropped for the one at /messages/2";

const where = (ws: readonly ReasoningWarning[]) => ws.map((w) => [w.code, w.path, w.eventIndex]);

async function viaFacade(events: readonly unknown[]): Promise<ReasoningWarning[]> {
  const warnings: ReasoningWarning[] = [];
  const pipeline = reasoningPipeline(from(events), { producer: "p", onWarning: (w) => warnings.push(w) });
  await lastValueFrom(pipeline.events$.pipe(toArray()));
  return warnings;
}

type Op = OperatorFunction<unknown, unknown>;

/** The five operators, fused, or with a foreign operator (`map(x => x)`) after enforcement. */
async function viaOperators(events: readonly unknown[], fused: boolean): Promise<ReasoningWarning[]> {
  const warnings: ReasoningWarning[] = [];
  const onWarning = (w: ReasoningWarning): number => warnings.push(w);
  const ops = [
    upcastThinking({ onWarning }),
    enforceSchema({ onWarning }),
    ...(fused ? [] : [map((x: unknown) => x)]),
    expandChunks({ onWarning }),
    verifyDiscipline({ onWarning }),
    deriveHistory({ onWarning, producer: "p" }),
  ] as Op[];
  await lastValueFrom(ops.reduce((out: Observable<unknown>, op) => out.pipe(op), from(events)).pipe(toArray()));
  return warnings;
}

async function viaMiddleware(events: readonly unknown[]): Promise<ReasoningWarning[]> {
  const middleware = reasoningMiddleware({ producer: "p" });
  const warnings: ReasoningWarning[] = [];
  middleware.warnings$.subscribe((w) => warnings.push(w));
  const next = { run: (_: RunAgentInput) => from(events) };
  await lastValueFrom((middleware(runInput(), next) as Observable<unknown>).pipe(toArray()));
  return warnings;
}

describe("D-EVENT-INDEX: a path into a list enforcement shortened names the source event's position", () => {
  const file = useTempFiles("agui-shortened-");

  it("D-EVENT-INDEX R-EVT-8: the facade, a fused chain and the middleware name the dropped copy where the source had it", async () => {
    for (const warnings of [
      await viaFacade(snapshot),
      await viaOperators(snapshot, true),
      await viaMiddleware(snapshot),
    ]) {
      expect(where(warnings)).toEqual(SNAPSHOT_WARNINGS);
      expect(warnings[1]!.message).toContain(SNAPSHOT_DROPPED);
    }
  });

  it("D-EVENT-INDEX R-EVT-8: agui-reasoning check --json names the same places", async () => {
    const r = await check(["check", file("shortened.jsonl", jsonl(snapshot)), "--json", "--no-progress"]);
    const json = JSON.parse(r.stdout) as { warnings: ReasoningWarning[] };
    expect(where(json.warnings)).toEqual(SNAPSHOT_WARNINGS);
    expect(json.warnings[1]!.message).toContain(SNAPSHOT_DROPPED);
  });

  it("D-EVENT-INDEX: an operator after a foreign operator names its own input's positions, as it counts its own input", async () => {
    // deriveHistory's input is enforcement's output, where the copies of "a" stand at 0 and 1.
    const warnings = await viaOperators(snapshot, false);
    expect(where(warnings)).toEqual([SNAPSHOT_WARNINGS[0], ["DUPLICATE_MESSAGE_ID", "/messages/0", 1]]);
    expect(warnings[1]!.message).toContain("the copy at /messages/0 was dropped for the one at /messages/1");
  });

  it("D-EVENT-INDEX R-EVT-8: RUN_STARTED.input.messages, whose first copy stays", async () => {
    const input = runInput({
      messages: [alien, { id: "b", role: "user", content: "1" }, { id: "b", role: "user", content: "2" }] as never,
    });
    const events = [ev.runStarted("r1", { input }), ev.runFinished("r1")];
    const warnings = await viaFacade(events);
    expect(where(warnings)).toEqual([
      ["UNKNOWN_UNION_MEMBER", "/input/messages/0", 0],
      ["DUPLICATE_MESSAGE_ID", "/input/messages/2", 0],
    ]);
    expect(warnings[1]!.message).toContain(
      "the copy at /input/messages/2 was dropped for the one at /input/messages/1",
    );
  });

  it("D-EVENT-INDEX R-ACT-5: an activity patch that does not apply names the operation's position in the source", async () => {
    const events = [
      ev.runStarted(),
      { type: "ACTIVITY_SNAPSHOT", messageId: "act", activityType: "plan", content: { a: 1 } },
      {
        type: "ACTIVITY_DELTA",
        messageId: "act",
        activityType: "plan",
        patch: [
          { op: "merge", path: "/a" },
          { op: "replace", path: "/a", value: 2 },
          { op: "test", path: "/a", value: 3 },
        ],
      },
      ev.runFinished(),
    ];
    for (const warnings of [await viaFacade(events), await viaOperators(events, true)]) {
      expect(where(warnings)).toEqual([
        ["UNKNOWN_UNION_MEMBER", "/patch/0", 2],
        ["ACTIVITY_SKIPPED", undefined, 2],
      ]);
      expect(warnings[1]!.message).toContain("operation 2 (test) does not apply");
    }
  });

  it("D-EVENT-INDEX R-PROC-4: a malformed element after a removed one is named where the source had it", async () => {
    const events = [
      {
        type: "MESSAGES_SNAPSHOT",
        messages: [alien, { id: "u", role: "user", content: "" }, { id: "v", role: "user" }],
      },
    ];
    await expect(viaFacade(events)).rejects.toMatchObject({
      code: "MALFORMED_EVENT",
      message: expect.stringContaining("the schema rejects /messages/2/content (") as string,
    });
    // A list inside a shortened list's element: both indexes are the source's.
    const parts = [{ type: "hologram" }, { type: "text" }];
    const nested = [{ type: "MESSAGES_SNAPSHOT", messages: [alien, { id: "u", role: "user", content: parts }] }];
    await expect(viaFacade(nested)).rejects.toMatchObject({
      code: "MALFORMED_EVENT",
      message: expect.stringContaining("the schema rejects /messages/1/content/1/text (") as string,
    });
  });
});
