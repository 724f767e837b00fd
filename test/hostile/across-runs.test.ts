/**
 * State across runs is bounded by the history's size (issue 12, finding 4). Before the fix, 100,000
 * runs whose fresh message ids a MESSAGES_SNAPSHOT dropped again kept the history at 2 messages, but
 * the verifier's known roles grew by every id ever seen (20,002 → 200,002 entries) and `exportState()`
 * with them (458 KB → 4.8 MB). A role is now forgotten when no message holds its id any more.
 */
import { from } from "rxjs";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import type { PipelineSnapshot } from "../../src/resume/pipeline-snapshot";
import { ev, msg } from "../../src/testing/builders";
import { failureOf, runFacade } from "./support/run";
import { caseCount } from "../support/case-count";

/** `runs` runs, each streaming a text message with a fresh id that the run's snapshot drops again. */
function droppedEachRun(runs: number): unknown[] {
  const events: unknown[] = [];
  for (let r = 0; r < runs; r++) {
    events.push(
      ev.runStarted(`r${r}`),
      ev.textStart(`fresh${r}`),
      ev.textContent(`fresh${r}`, "x"),
      ev.textEnd(`fresh${r}`),
    );
    events.push(ev.messagesSnapshot([msg.user("u1", "hi"), msg.assistant("a1", "ok")]), ev.runFinished(`r${r}`));
  }
  return events;
}

function exported(events: readonly unknown[]): { snapshot: PipelineSnapshot; json: string; messages: number } {
  const p = reasoningPipeline(from(events), { producer: "p", onWarning: () => {} });
  let failure: unknown;
  p.events$.subscribe({ error: (e: unknown) => (failure = e) });
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the pipeline's own error, rethrown as it is
  if (failure !== undefined) throw failure;
  const snapshot = p.exportState();
  return { snapshot, json: JSON.stringify(snapshot), messages: p.history.messages.length };
}

describe("memory across runs: bounded by the history's size", () => {
  it("D-ROLE-CONFLICT: 5,000 runs whose fresh ids a snapshot drops leave the known roles and exportState() as after 50 runs", () => {
    const few = exported(droppedEachRun(50));
    const many = exported(droppedEachRun(caseCount(5_000)));
    expect(many.messages).toBe(2);
    expect(many.snapshot.discipline.roles).toEqual(few.snapshot.discipline.roles);
    expect(many.snapshot.discipline.roles).toHaveLength(2);
    // Only the counters' digits may differ (the source index, run ids).
    expect(many.json.length - few.json.length).toBeLessThan(40);
  });

  it("D-ROLE-CONFLICT: an id the snapshot dropped may be reused with the other role; the history holds no message with it", () => {
    const run = runFacade([
      ...droppedEachRun(1),
      ev.runStarted("r9"),
      ev.reasoningMessageStart("fresh0"),
      ev.reasoningMessageEnd("fresh0"),
      ev.runFinished("r9"),
    ]);
    expect(run.error).toBeUndefined();
    expect(run.history.messages.map((m) => [m.id, m.role])).toEqual([
      ["u1", "user"],
      ["a1", "assistant"],
      ["fresh0", "reasoning"],
    ]);
  });

  it("D-ROLE-CONFLICT: what the history still holds keeps its role — a reasoning message a snapshot without reasoning keeps, and a message open across the snapshot", () => {
    const kept = [
      ev.runStarted(),
      ev.reasoningMessageStart("think"),
      ev.reasoningMessageEnd("think"),
      ev.messagesSnapshot([msg.user("u1", "hi")]),
      ev.textStart("think"),
    ];
    expect(failureOf(runFacade(kept).error)).toEqual({
      code: "ID_ROLE_CONFLICT",
      rule: "D-ROLE-CONFLICT",
      eventIndex: 4,
      eventType: "TEXT_MESSAGE_START",
    });

    const open = [
      ev.runStarted(),
      ev.textStart("a9"),
      ev.messagesSnapshot([msg.user("u1", "hi")]),
      ev.textEnd("a9"),
      ev.reasoningMessageStart("a9"),
    ];
    expect(failureOf(runFacade(open).error)).toEqual({
      code: "ID_ROLE_CONFLICT",
      rule: "D-ROLE-CONFLICT",
      eventIndex: 4,
      eventType: "REASONING_MESSAGE_START",
    });
  });
});
