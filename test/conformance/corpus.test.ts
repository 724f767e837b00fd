/**
 * The AG-UI 1.0 conformance corpus, replayed through the real stack a user runs: each fixture's
 * stream is served over HTTP as SSE by a local server (frames cut into small TCP writes, also
 * inside multi-byte characters), read by a real `HttpAgent` (`@ag-ui/client` 1.0.0) `.run(input)`,
 * and piped through `reasoningPipeline` with `events$`, `history$` and `warnings$` subscribed.
 *
 * What is asserted is what this package owns: `outcome`, `eventTypes`, `eventTypesAbsent`,
 * `eventPaths`, `eventAbsentPaths`, `warnings`, `noWarnings`, `messageCount`, `messages` and
 * `runError`. The corpus README says how to point it at a third-party client; this file follows it:
 * - `warnings` strings are the reference client's wording (SHOULD-level): `WARNING_CODES` maps
 *   each one to the structured warning we emit (code, and path or type where the string names one);
 * - `errorContains` is the reference client's wording: `ERROR_CODES` maps each failing fixture to
 *   our `ReasoningProtocolError.code` (plus the ids / event index the wording names);
 * - `expectOverrides.dotnet` describes the .NET client and is ignored; `expectOverrides.typescript`
 *   describes the reference TypeScript client and is adopted only where `ADOPTED_OVERRIDES` says why;
 * - `unknown-enum-value-role-fatal` pins an admitted gap of the reference client: there we follow
 *   the spec (strip the unknown role with a warning), see `SPEC_OVER_FIXTURE`.
 * The corpus itself is never edited.
 */
import { ReasoningProtocolError, type ReasoningErrorCode, type ReasoningWarning } from "../../src";
import { startAgentServer, type AgentServer } from "../support/sse-server";
import { runInput, runOverHttp, type HttpRunResult } from "../support/http-run";
import { fixtureFiles, loadFixture, lookup, manifest, project, type Fixture, type FixtureExpect } from "./fixture";

/** Fixtures whose subject this package owns, each with the rule id its test pins. */
const IN_SCOPE: Record<string, string> = {
  "activity-delta-missing-target-tolerated": "R-ACT-5",
  "chunk-conflicting-role-fatal": "R-STREAM-14",
  "chunk-conflicting-tool-name-fatal": "R-STREAM-14",
  "chunk-expansion-assembles": "R-STREAM-12",
  "chunk-repeat-identical-accepted": "R-STREAM-14",
  "conformant-run-is-quiet": "R-PROC-6",
  "content-without-start-fatal": "R-STREAM-2",
  "custom-closes-chunk-stream-fatal": "R-PASS-1",
  "encrypted-value-unknown-entity-tolerated": "R-REASON-22",
  "era-0-0-45-thinking-translated": "R-DEP-2",
  "event-after-run-finished-fatal": "R-RUN-8",
  "first-chunk-missing-id-fatal": "R-STREAM-11",
  "first-event-not-run-started-fatal": "R-RUN-1",
  "first-tool-chunk-missing-name-fatal": "R-STREAM-11",
  "late-run-error-after-finished-run-continues": "R-RUN-7",
  "malformed-known-field-fatal": "R-PROC-4",
  "messages-snapshot-reconciles-by-id": "R-STATE-4",
  "metadata-merges-last-write-wins": "R-META-4",
  "nested-run-started-fatal": "R-RUN-9",
  "open-message-at-run-finished-fatal": "R-STREAM-3",
  "open-metadata-preserved": "R-META-2",
  "open-object-patch-op-extras": "R-PROC-8",
  "producer-declares-newer-version-warns": "R-VER-17",
  "producer-declares-same-version-quiet": "R-VER-16",
  "producer-declares-uninterpretable-version-warns": "R-VER-16",
  "raw-and-custom-pass-through": "R-PASS-3",
  "raw-does-not-close-chunk-stream": "R-PASS-1",
  "reasoning-discipline-verified": "R-REASON-9",
  "reasoning-message-wrong-role-fatal": "R-SCHEMA-2",
  "reasoning-span-and-message": "R-REASON-6",
  "reopen-closed-message-appends": "R-TEXT-5",
  "run-error-first-run-continues": "R-RUN-1",
  "run-error-then-new-run-continues": "R-RUN-11",
  "run-finished-cancelled-outcome-accepted": "R-RUN-4",
  "run-finished-interrupt-outcome-accepted": "R-RUN-3",
  "run-finished-with-active-subagent-fatal": "R-SUB-5",
  "state-delta-unknown-op-dropped": "R-PROC-11",
  "step-finished-without-start-fatal": "R-RUN-12",
  "subagent-attribution-mismatch-fatal": "R-SUB-2",
  "subagent-finished-unstarted-fatal": "R-SUB-5",
  "subagent-started-missing-name-fatal": "R-PROC-4",
  "subagent-terminal-closes-open-chunk-stream": "R-STREAM-17",
  "subagent-unannounced-attribution-accepted": "R-EVT-6",
  "tool-call-metadata-lands-on-the-call": "R-TOOL-5",
  "tool-call-triad-assembles": "R-TOOL-1",
  "tool-result-file-source-passes-through": "R-TOOL-3",
  "tool-result-parts-mint-tool-message": "R-TOOL-3",
  "triad-assembles-message": "R-STREAM-4",
  "two-sequential-runs-accumulate": "R-RUN-10",
  "unknown-enum-value-role-fatal": "R-PROC-10",
  "unknown-event-dropped": "R-PROC-1",
  "unknown-outcome-array-fatal": "R-PROC-4",
  "unknown-outcome-stripped": "R-RUN-3",
  "unknown-part-in-message-list": "R-PROC-11",
  "unknown-property-stripped": "R-PROC-2",
};

/** Fixtures this package does not own, each with the reason. */
const OUT_OF_SCOPE: Record<string, string> = {
  "activity-replace-false-preserves":
    "activity reducer: `ACTIVITY_SNAPSHOT.replace:false` semantics of activity messages (display state, never sent back)",
  "activity-snapshot-then-delta": "activity patches: applying an ACTIVITY_DELTA JSON patch to activity content",
  "current-peer-declares-protocol-version":
    "asserts only the outgoing RunAgentInput (`request.protocolVersion`), which the HttpAgent builds, not this package",
  "era-0-0-39-flattens-content":
    "a version-gated outgoing content downgrade of the reference client (binary/multimodal content, `request`); this package never downgrades",
  "era-0-0-47-upgrades-binary-content":
    "binary content: the reference client's outgoing legacy-binary upgrade (`request`)",
  "era-0-0-57-subagent-dropped-with-warning":
    "a version-gated downgrade for a peer pinned to 0.0.57; without a known older peer this package behaves as if the peer were current (R-VER-20) and delivers SUBAGENT_* events",
  "era-current-peer-keeps-modern-content":
    "binary content: asserts the outgoing request's legacy-binary upgrade, which the HttpAgent performs",
  "era-pinned-peer-omits-protocol-version":
    "asserts only the outgoing RunAgentInput (`requestAbsentPaths`), built by the HttpAgent",
  "state-delta-applies": "state: applying STATE_DELTA patches; this package keeps no state",
  "state-delta-unappliable-warns-and-keeps": "state: patch application and its warning; this package keeps no state",
  "state-falsy-snapshot-applies": "state: STATE_SNAPSHOT replacement semantics; this package keeps no state",
  "state-null-snapshot-applies": "state: STATE_SNAPSHOT replacement semantics; this package keeps no state",
  "state-snapshot-replaces": "state: STATE_SNAPSHOT replacement semantics; this package keeps no state",
};

/** Expectation keys this runner does not assert, with the reason. */
const KEYS_NOT_OWNED: Record<string, string> = {
  state: "this package keeps no state (the state reducer is the application's / the client's)",
  request: "the outgoing RunAgentInput is built and sent by the HttpAgent, not by this package",
  requestAbsentPaths: "the outgoing RunAgentInput is built and sent by the HttpAgent, not by this package",
  errorContains: "reference-client wording; mapped to our error code by ERROR_CODES",
};

/** `errorContains` (reference-client wording) → what our ReasoningProtocolError says. */
const ERROR_CODES: Record<string, { code: ReasoningErrorCode; ids?: string[]; eventIndex?: number }> = {
  "chunk-conflicting-role-fatal": { code: "CONFLICTING_CHUNK_FIELD", eventIndex: 2 },
  "chunk-conflicting-tool-name-fatal": { code: "CONFLICTING_CHUNK_FIELD", eventIndex: 2 },
  "content-without-start-fatal": { code: "ORPHAN_CONTENT", ids: ["orphan-content-m1"], eventIndex: 1 },
  "custom-closes-chunk-stream-fatal": { code: "FIRST_CHUNK_WITHOUT_ID", eventIndex: 3 },
  "event-after-run-finished-fatal": { code: "EVENT_OUTSIDE_RUN", eventIndex: 2 },
  "first-chunk-missing-id-fatal": { code: "FIRST_CHUNK_WITHOUT_ID", eventIndex: 1 },
  "first-event-not-run-started-fatal": { code: "EVENT_OUTSIDE_RUN", eventIndex: 0 },
  "first-tool-chunk-missing-name-fatal": { code: "FIRST_CHUNK_WITHOUT_ID", eventIndex: 1 },
  "malformed-known-field-fatal": { code: "MALFORMED_EVENT" },
  "nested-run-started-fatal": { code: "NESTED_RUN", eventIndex: 1 },
  "open-message-at-run-finished-fatal": { code: "OPEN_AT_RUN_FINISHED", eventIndex: 3 },
  "reasoning-discipline-verified": { code: "ORPHAN_CONTENT", ids: ["m-reasoning-discipline-1"], eventIndex: 1 },
  "reasoning-message-wrong-role-fatal": { code: "MALFORMED_EVENT", eventIndex: 1 },
  "run-finished-with-active-subagent-fatal": {
    code: "OPEN_AT_RUN_FINISHED",
    ids: ["s-run-finished-active-subagent-1"],
    eventIndex: 5,
  },
  "step-finished-without-start-fatal": { code: "ORPHAN_END", eventIndex: 1 },
  "subagent-attribution-mismatch-fatal": { code: "ATTRIBUTION_MISMATCH" },
  "subagent-finished-unstarted-fatal": { code: "ORPHAN_END", ids: ["s-subagent-finished-unstarted-1"], eventIndex: 1 },
  "subagent-started-missing-name-fatal": { code: "MALFORMED_EVENT", eventIndex: 1 },
  "unknown-outcome-array-fatal": { code: "MALFORMED_EVENT", eventIndex: 1 },
};

/** How one reference-client warning string is recognised among our structured warnings. */
interface WarningMatch {
  readonly code: string;
  readonly path?: string;
  readonly mentions?: string;
}

/** `warnings` (reference-client wording, SHOULD-level) → our warning. */
const WARNING_CODES: Record<string, Record<string, WarningMatch>> = {
  "era-0-0-45-thinking-translated": { THINKING_START: { code: "THINKING_UPCAST", mentions: "THINKING_START" } },
  "producer-declares-newer-version-warns": { "1.1": { code: "PROTOCOL_VERSION", mentions: "1.1" } },
  "producer-declares-uninterpretable-version-warns": { "cannot interpret": { code: "PROTOCOL_VERSION" } },
  "state-delta-unknown-op-dropped": { "/delta/0": { code: "UNKNOWN_UNION_MEMBER", path: "/delta/0" } },
  "unknown-event-dropped": { FUTURE_EVENT: { code: "UNKNOWN_EVENT_TYPE", mentions: "FUTURE_EVENT" } },
  "unknown-outcome-stripped": { "/outcome": { code: "UNKNOWN_UNION_MEMBER", path: "/outcome" } },
  "unknown-part-in-message-list": {
    "/messages/0/content/1": { code: "UNKNOWN_UNION_MEMBER", path: "/messages/0/content/1" },
  },
  "unknown-property-stripped": { "/futureProp": { code: "STRIPPED_PROPERTY", path: "/futureProp" } },
};

/** `expectOverrides.typescript` blocks we adopt, with the reason (the others describe the reference client only). */
const ADOPTED_OVERRIDES: Record<string, string> = {
  "subagent-terminal-closes-open-chunk-stream":
    "we expand chunks too, so the delivered order is observable here, and it is the only witness of R-STREAM-17",
};

/**
 * Where the fixture pins the reference client's admitted gap and we follow the specification.
 * `unknown-enum-value-role-fatal`: an unknown `TEXT_MESSAGE_START.role` is an unrecognised member
 * of a closed set in an optional position, so the spec (processing page, R-PROC-3/6/10/11) strips
 * it with a warning and the run continues; the reference client fails instead. Ours: the role is
 * removed (it then defaults to "assistant", R-TEXT-3) and the message assembles.
 */
const SPEC_OVER_FIXTURE: Record<string, { expect: FixtureExpect; warnings: WarningMatch[] }> = {
  "unknown-enum-value-role-fatal": {
    expect: {
      outcome: "completed",
      eventTypes: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
      eventAbsentPaths: ["1.role"],
      messageCount: 1,
      messages: [
        { id: "m-unknown-role", role: "assistant", content: "the role above is the only defect in this stream" },
      ],
    },
    warnings: [{ code: "UNKNOWN_UNION_MEMBER", path: "/role" }],
  },
};

const KNOWN_KEYS = new Set([
  "outcome",
  "errorContains",
  "runError",
  "eventTypes",
  "eventTypesAbsent",
  "eventPaths",
  "eventAbsentPaths",
  "warnings",
  "noWarnings",
  "messageCount",
  "messages",
  ...Object.keys(KEYS_NOT_OWNED),
]);

// ---------------------------------------------------------------------------------------------

let server: AgentServer;
// Fixtures by name: the server streams the one the request names in `forwardedProps.fixture`.
const fixtures = new Map<string, Fixture>();

beforeAll(async () => {
  for (const name of Object.keys(IN_SCOPE)) fixtures.set(name, loadFixture(name));
  server = await startAgentServer((request) => {
    const name = (request.json as { forwardedProps?: { fixture?: string } }).forwardedProps?.fixture ?? "";
    const fixture = fixtures.get(name);
    return fixture ? { events: fixture.stream, writeSize: 11 } : { events: [], status: 404 };
  });
});

afterAll(() => server.close());

function replay(fixture: Fixture): Promise<HttpRunResult> {
  return runOverHttp(
    server.url,
    runInput({
      threadId: `t-${fixture.name}`,
      runId: `r-${fixture.name}`,
      messages: (fixture.input?.messages ?? []) as never,
      tools: (fixture.input?.tools ?? []) as never,
      forwardedProps: { fixture: fixture.name },
    }),
  );
}

function matches(w: ReasoningWarning, m: WarningMatch): boolean {
  return (
    w.code === m.code &&
    (m.path === undefined || w.path === m.path) &&
    (m.mentions === undefined || w.message.includes(m.mentions))
  );
}

/** The expectations that apply to us: the fixture's, with adopted overrides, minus keys we do not own. */
function expectationsFor(fixture: Fixture): FixtureExpect {
  const ours = SPEC_OVER_FIXTURE[fixture.name];
  if (ours) return ours.expect;
  const override = ADOPTED_OVERRIDES[fixture.name] ? fixture.expectOverrides?.typescript : undefined;
  const merged = { ...fixture.expect, ...(override ?? {}) } as FixtureExpect & { intentional?: string };
  delete merged.intentional;
  return merged;
}

function assertRun(fixture: Fixture, run: HttpRunResult): void {
  const expected = expectationsFor(fixture);
  for (const key of Object.keys(expected)) expect(KNOWN_KEYS.has(key) ? key : `unread key ${key}`).toBe(key);

  if (expected.outcome === "failed") {
    expect(run.error).toBeInstanceOf(ReasoningProtocolError);
    const mapped = ERROR_CODES[fixture.name];
    expect(mapped).toBeDefined();
    const error = run.error as ReasoningProtocolError;
    expect(error.code).toBe(mapped!.code);
    if (mapped!.eventIndex !== undefined) expect(error.eventIndex).toBe(mapped!.eventIndex);
    for (const id of mapped!.ids ?? []) expect(error.ids).toContain(id);
  } else if (expected.outcome === "completed") {
    expect(run.error).toBeUndefined();
  }

  const types = run.events.map((e) => e.type);
  if (expected.eventTypes) expect(types).toEqual(expected.eventTypes);
  for (const absent of expected.eventTypesAbsent ?? []) expect(types).not.toContain(absent);
  for (const [path, value] of Object.entries(expected.eventPaths ?? {})) {
    expect({ path, ...lookup(run.events, path) }).toEqual({ path, found: true, value });
  }
  for (const path of expected.eventAbsentPaths ?? []) {
    expect({ path, found: lookup(run.events, path).found }).toEqual({ path, found: false });
  }

  if (expected.runError !== undefined) {
    const reported = run.events.filter((e) => e.type === "RUN_ERROR").map((e) => String(e.message));
    if (expected.runError === true) expect(reported.length).toBeGreaterThan(0);
    else expect(reported.some((m) => m.includes(expected.runError as string))).toBe(true);
  }

  const warningMatches = SPEC_OVER_FIXTURE[fixture.name]?.warnings ?? expectedWarnings(fixture.name, expected.warnings);
  for (const m of warningMatches) {
    expect({ expected: m, found: run.warnings.some((w) => matches(w, m)) }).toEqual({ expected: m, found: true });
  }
  if (expected.noWarnings) expect(run.warnings.map((w) => `${w.code} ${w.path ?? ""}`)).toEqual([]);

  if (expected.messageCount !== undefined) expect(run.history.messages).toHaveLength(expected.messageCount);
  if (expected.messages) expect(project(run.history.messages, expected.messages)).toEqual(expected.messages);
}

function expectedWarnings(name: string, strings: readonly string[] | undefined): WarningMatch[] {
  return (strings ?? []).map((text) => {
    const m = WARNING_CODES[name]?.[text];
    if (!m) throw new Error(`WARNING_CODES has no entry for ${name}: ${JSON.stringify(text)}`);
    return m;
  });
}

// ---------------------------------------------------------------------------------------------

describe("AG-UI 1.0 conformance corpus over HTTP + HttpAgent + reasoningPipeline", () => {
  it("R-PROC-19 every fixture of MANIFEST.txt is replayed here or listed out of scope with a reason", () => {
    const listed = manifest();
    expect(fixtureFiles()).toEqual([...listed].sort());
    const classified = [...Object.keys(IN_SCOPE), ...Object.keys(OUT_OF_SCOPE)].sort();
    expect(classified).toEqual([...listed].sort());
    for (const reason of Object.values(OUT_OF_SCOPE)) expect(reason.length).toBeGreaterThan(20);
  });

  it("R-PROC-4 every failing fixture has an error-code mapping, and every mapping a failing fixture", () => {
    const failing = Object.keys(IN_SCOPE).filter((n) => expectationsFor(loadFixture(n)).outcome === "failed");
    expect(failing.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it("R-PROC-6 the harness itself can fail: a wrong message, an extra message and a wrong outcome are caught", async () => {
    const fixture = loadFixture("triad-assembles-message");
    const run = await replay(fixture);
    assertRun(fixture, run);
    const wrongContent = {
      ...fixture,
      expect: { ...fixture.expect, messages: [{ id: "triad-m1", content: "other" }] },
    };
    expect(() => assertRun(wrongContent, run)).toThrow();
    const extraMessage = { ...fixture, expect: { ...fixture.expect, messages: [{}, {}] } };
    expect(() => assertRun(extraMessage, run)).toThrow();
    const wantsFailure = { ...fixture, expect: { outcome: "failed" as const } };
    expect(() => assertRun(wantsFailure, run)).toThrow();
  });

  for (const [name, rule] of Object.entries(IN_SCOPE)) {
    const title =
      name in SPEC_OVER_FIXTURE
        ? `${rule} ${name} (admitted gap of the reference client: we strip, per the spec)`
        : `${rule} ${name}`;
    it(title, async () => {
      const fixture = fixtures.get(name)!;
      const run = await replay(fixture);
      assertRun(fixture, run);
    });
  }

  it("R-TRANS-1 the replay really went over HTTP, every frame cut into several TCP writes", () => {
    const requests = server.requests.filter((r) => r.stats.framesSent > 0);
    expect(requests.length).toBeGreaterThanOrEqual(Object.keys(IN_SCOPE).length);
    for (const r of requests) expect(r.stats.writes).toBeGreaterThan(r.stats.framesSent);
  });
});
