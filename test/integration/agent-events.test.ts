/**
 * `agentEvents(agent, input)`: one `agent.run(input)` as a cold, abortable Observable.
 * (The real-HTTP proof — the server sees the connection close — is in http-agent.test.ts.)
 */
import { Observable, Subject } from "rxjs";
import type { RunAgentInput } from "@ag-ui/core";
import { agentEvents, type RunnableAgent } from "../../src/integration/agent-events";
import { runInput } from "../support/http-run";

/** A stand-in for HttpAgent: records each run with the signal it was started with. */
function fakeAgent() {
  const runs: Array<{ input: RunAgentInput; signal: AbortSignal; events: Subject<unknown> }> = [];
  const agent: RunnableAgent & { abortController: AbortController } = {
    abortController: new AbortController(),
    run(input) {
      const events = new Subject<unknown>();
      runs.push({ input, signal: agent.abortController.signal, events });
      return events.asObservable();
    },
  };
  return { agent, runs };
}

describe("agentEvents", () => {
  it("R-RUN-5 is cold: nothing runs before subscription, and each subscription is its own run with its own AbortController", () => {
    const { agent, runs } = fakeAgent();
    const events$ = agentEvents(agent, runInput());
    expect(runs).toHaveLength(0);
    const a = events$.subscribe();
    const b = events$.subscribe();
    expect(runs).toHaveLength(2);
    expect(runs[0]!.signal).not.toBe(runs[1]!.signal);
    a.unsubscribe();
    b.unsubscribe();
  });

  it("R-RUN-5 unsubscribing before the end aborts that run's request; other runs are untouched", () => {
    const { agent, runs } = fakeAgent();
    const events$ = agentEvents(agent, runInput());
    const seen: unknown[] = [];
    const a = events$.subscribe((e) => seen.push(e));
    const b = events$.subscribe();
    runs[0]!.events.next({ type: "RUN_STARTED" });
    a.unsubscribe();
    expect(runs[0]!.signal.aborted).toBe(true);
    expect(runs[1]!.signal.aborted).toBe(false);
    runs[0]!.events.next({ type: "RUN_FINISHED" });
    expect(seen).toEqual([{ type: "RUN_STARTED" }]);
    b.unsubscribe();
  });

  it("R-TRANS-2 a run that ended on its own (complete or error) is not aborted afterwards", () => {
    const { agent, runs } = fakeAgent();
    // A reply without any event fails (R-TRANS-3): handled here, or it escapes as an unhandled error.
    const completed = agentEvents(agent, runInput()).subscribe({ error: () => {} });
    runs[0]!.events.complete();
    completed.unsubscribe();
    expect(runs[0]!.signal.aborted).toBe(false);
    let failure: unknown;
    agentEvents(agent, runInput()).subscribe({ error: (e: unknown) => (failure = e) });
    runs[1]!.events.error(new Error("HTTP 500"));
    expect(failure).toEqual(new Error("HTTP 500"));
    expect(runs[1]!.signal.aborted).toBe(false);
  });

  it("R-TRANS-5 works with any agent whose run returns an Observable, even one without an AbortController", () => {
    const agent: RunnableAgent = {
      run: () =>
        new Observable((s) => {
          s.next({ type: "RUN_ERROR", message: "x" });
          s.complete();
        }),
    };
    const seen: unknown[] = [];
    agentEvents(agent, runInput()).subscribe((e) => seen.push(e));
    expect(seen).toEqual([{ type: "RUN_ERROR", message: "x" }]);
    expect("abortController" in agent).toBe(false);
  });
});
