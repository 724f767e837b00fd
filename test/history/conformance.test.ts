import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CORPUS_DIR } from "../conformance/fixture";
import { runStage } from "../../src/core/stage-operator";
import type { AguiEvent } from "../../src/core/types";
import { createHistoryStage } from "../../src/history/history-stage";

/**
 * The 1.0 conformance fixtures whose streams are already valid, expanded and verified, replayed
 * through the history stage alone: the messages it derives must match `expect.messages` (subset
 * match, same length), `expect.messageCount`, and `noWarnings`. Fixtures that need another stage
 * first (chunks, THINKING_*, stripping, eras) are exercised by the pipeline's own suite.
 */
const STREAMS = CORPUS_DIR;

interface Fixture {
  readonly stream: readonly AguiEvent[];
  readonly expect: {
    readonly messages?: readonly unknown[];
    readonly messageCount?: number;
    readonly noWarnings?: boolean;
  };
}

// Fixture → the rule it pins for the history.
const FIXTURES: ReadonlyArray<[string, string]> = [
  ["R-STATE-4", "messages-snapshot-reconciles-by-id"],
  ["R-META-4", "metadata-merges-last-write-wins"],
  ["R-META-2", "open-metadata-preserved"],
  ["R-TEXT-5", "reopen-closed-message-appends"],
  ["R-TEXT-4", "triad-assembles-message"],
  ["R-RUN-10", "two-sequential-runs-accumulate"],
  ["R-RUN-13", "run-error-then-new-run-continues"],
  ["R-RUN-13", "run-error-first-run-continues"],
  ["R-RUN-7", "late-run-error-after-finished-run-continues"],
  ["R-RUN-3", "run-finished-cancelled-outcome-accepted"],
  ["R-RUN-3", "run-finished-interrupt-outcome-accepted"],
  ["#97", "reasoning-span-and-message"],
  ["R-REASON-22", "encrypted-value-unknown-entity-tolerated"],
  ["R-TOOL-1", "tool-call-triad-assembles"],
  ["R-TOOL-5", "tool-call-metadata-lands-on-the-call"],
  ["R-TOOL-3", "tool-result-parts-mint-tool-message"],
  ["R-TOOL-3", "tool-result-file-source-passes-through"],
  ["R-ACT-5", "activity-delta-missing-target-tolerated"],
  ["R-ACT-5", "activity-replace-false-preserves"],
  ["R-ACT-5", "activity-snapshot-then-delta"],
  ["R-PASS-3", "raw-and-custom-pass-through"],
  ["R-SUB-2", "subagent-unannounced-attribution-accepted"],
  ["R-PROC-6", "conformant-run-is-quiet"],
];

describe("conformance fixtures through the history stage", () => {
  it.each(FIXTURES)("%s fixture %s: derived messages match", (_rule, name) => {
    const fixture = JSON.parse(readFileSync(join(STREAMS, `${name}.json`), "utf8")) as Fixture;
    const r = runStage(createHistoryStage({ producer: "https://agent.example" }), fixture.stream);
    expect(r.error).toBeUndefined();
    const { messages, messageCount, noWarnings } = fixture.expect;
    if (messageCount !== undefined) expect(r.state.history.messages).toHaveLength(messageCount);
    if (messages !== undefined) expect(r.state.history.messages).toMatchObject(messages as unknown[]);
    if (noWarnings) expect(r.warnings).toEqual([]);
    expect(messageCount !== undefined || messages !== undefined).toBe(true);
  });
});
