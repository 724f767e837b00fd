/**
 * The hand-written part of the traceability matrix: digest rules this package does not implement
 * (with the reason), and rules that only restate others (with the ids whose tests pin them). Every
 * other R- id of the digest and every D- id of decisions.md must be pinned by a test whose name
 * starts with it. test/traceability/matrix.test.ts checks both lists stay honest: an id listed here
 * must exist, must not also be pinned directly, and a restatement's ids must be pinned.
 */

/** Rules outside what this package does: producer obligations, UI and application duties, features it does not implement. */
export const OUT_OF_SCOPE: Readonly<Record<string, string>> = {
  // §1 Reasoning
  "R-REASON-1":
    "Presentation is the application's choice; the package renders nothing and always keeps reasoning messages in history.",
  // §3 Text messages
  "R-TEXT-1":
    "Buffering versus token-by-token rendering is a UI choice; history$ publishes every change and the UI picks.",
  // §5 Metadata
  "R-META-3": "A producer SHOULD; the package's own metadata key (`agui-reasoning`, D-THINK-TITLE) follows it.",
  // §6 Processing model
  "R-PROC-5":
    "Transport decoding (SSE, protobuf, binary envelopes) happens in the transport (e.g. @ag-ui/client) before events reach the operators.",
  "R-PROC-20":
    "The package does not assemble or send RunAgentInput: toRunInputMessages returns messages of a history built from validated events; the application or HttpAgent sends them.",
  "R-PROC-21": "Producer obligation (validating run input).",
  "R-PROC-22": "Producer obligation (no undescribed event types).",
  // §7 Versioning
  "R-VER-1": "Protocol design rule (additions must be safe for older parties).",
  "R-VER-2": "Producer obligation (nothing with a described place goes into an addition alone).",
  "R-VER-9": "Registry duty of the spec authors (the THINKING_* rows exist in DEPRECATIONS.md).",
  "R-VER-19": "Transport-level mirroring of the version; the operators read only the in-band field (R-VER-16/17).",
  "R-VER-22":
    "Summary of the producer and consumer duties listed as R-VER-*, R-PROC-*; each is pinned or listed on its own.",
  // §8 Schema reference
  "R-SCHEMA-14":
    "RunAgentInput is built by the application or HttpAgent; the package returns its `messages` only (R-INPUT-3/4).",
  "R-SCHEMA-15": "Capability declarations are informative and never consulted (R-CAP-2).",
  "R-SCHEMA-16": "Token usage accounting is not part of reasoning events or history.",
  // §9 State
  "R-STATE-1":
    "Agent state is not derived: the history holds messages only (STATE_* events are validated and forwarded).",
  "R-STATE-2":
    "Agent state is not derived: the history holds messages only (STATE_* events are validated and forwarded).",
  "R-STATE-9":
    "Agent state is not derived: the history holds messages only (STATE_* events are validated and forwarded).",
  "R-STATE-10": "Application duty (validate state before acting on it); producers' duty (no secrets in state).",
  "R-SNAP-2": "Producer MAY/SHOULD (when to send a snapshot).",
  // §11 Run input
  "R-INPUT-1":
    "Producer obligation; the spec gives a consumer no verdict for a run whose boundary events disagree on runId.",
  "R-INPUT-2": "RunAgentInput (and its protocolVersion) is built by the application or HttpAgent, not by this package.",
  "R-INPUT-5": "Producer obligation (skipping a content part it cannot use).",
  "R-INPUT-6": "Producer obligation (input validation before RUN_STARTED).",
  // §14 Tool calls
  "R-TOOL-4": "The package never executes tools; acting on arguments is the application's business.",
  // §17 Security
  "R-SEC-4": "Rendering is the application's (escape streamed content); the package renders nothing.",
  "R-SEC-5": "Application duty (validate state) and producer duty (no secrets in state).",
  // §18 Capabilities
  "R-CAP-1": "Capability declarations never reach the operators; nothing is inferred from them.",
  "R-CAP-2": "Capability declarations never reach the operators; the stream alone decides.",
  "R-CAP-3": "Capability declarations never reach the operators, so they cannot prevent a run.",
};

/** Rules that restate others: pinned by the tests of the listed ids. */
export const RESTATED: Readonly<Record<string, { readonly by: readonly string[]; readonly why: string }>> = {
  "R-REASON-4": { by: ["R-REASON-13"], why: "Producer duty to close spans; its consumer side is R-REASON-13." },
  "R-REASON-7": {
    by: ["R-STREAM-7", "R-STREAM-10", "R-REASON-11", "R-TEXT-5"],
    why: "The streaming pattern applied to reasoning messages.",
  },
  "R-REASON-27": {
    by: ["R-SCHEMA-2", "R-SCHEMA-3", "R-SCHEMA-5", "R-SCHEMA-6"],
    why: "The reasoning event shapes are the schema's.",
  },
  "R-TEXT-2": {
    by: ["R-STREAM-1", "R-STREAM-2", "R-STREAM-3", "R-TEXT-9"],
    why: "The streaming rules, for text messages.",
  },
  "R-TEXT-7": { by: ["R-STREAM-7", "R-STREAM-11", "R-STREAM-14"], why: "Chunk expansion rules, for text messages." },
  "R-TEXT-8": { by: ["R-META-4"], why: "The metadata merge rule, for text messages." },
  "R-EVT-2": {
    by: ["R-PROC-1", "R-PROC-4"],
    why: "An unknown type is dropped (R-PROC-1); a missing or non-string type is malformed (R-PROC-4).",
  },
  "R-EVT-5": { by: ["R-META-1"], why: "metadata is optional, an object when present." },
  "R-EVT-10": {
    by: ["R-VER-13", "R-PROC-1"],
    why: "THINKING_* are not 1.0 types: untranslated, they are dropped as unknown.",
  },
  "R-EVT-11": {
    by: ["R-PROC-2", "R-PROC-4"],
    why: "Validation uses the schema (@ag-ui/core's zod schemas) as the authority.",
  },
  "R-META-6": {
    by: ["R-META-5", "R-STATE-4"],
    why: "Only the listed events merge metadata; a snapshot replaces the message wholesale.",
  },
  "R-PROC-9": {
    by: ["R-PROC-12", "R-PROC-13"],
    why: "Enforcement is a pipeline stage after the compatibility boundary, not part of parsing.",
  },
  "R-PROC-10": {
    by: ["R-PROC-11"],
    why: "This package follows the rule, not the reference gap: an unknown role in a list drops that element with a warning (#95).",
  },
  "R-PROC-14": {
    by: ["R-STREAM-7"],
    why: "verifyDiscipline rejects unexpanded chunks, so it must be placed after expandChunks.",
  },
  "R-PROC-17": { by: ["R-STREAM-7", "R-PROC-12"], why: "Verification runs after expansion in the canonical order." },
  "R-PROC-18": { by: ["R-PROC-13"], why: "The boundary sees THINKING_* before enforcement would drop them." },
  "R-VER-8": { by: ["R-VER-10"], why: "Retired shapes are translated, not dropped." },
  "R-VER-14": { by: ["R-VER-16", "R-VER-17"], why: "The producer's in-band RUN_STARTED.protocolVersion is read." },
  "R-DEP-1": { by: ["R-DEP-2", "R-VER-10"], why: "THINKING_* are translated at the compatibility boundary." },
  "R-SCHEMA-1": { by: ["R-EVT-3", "R-EVT-7", "R-META-1"], why: "The envelope fields: timestamp, rawEvent, metadata." },
  "R-SCHEMA-4": { by: ["R-REASON-23"], why: "A missing required messageId is a malformed reasoning event." },
  "R-SCHEMA-7": { by: ["R-EVT-12"], why: "Every family is accepted and forwarded." },
  "R-SCHEMA-11": {
    by: ["R-REASON-18"],
    why: "An activity message carries no encryptedValue, so it is no storage target.",
  },
  "R-SCHEMA-12": {
    by: ["R-PROC-11"],
    why: "The closed role set: an unknown role inside a snapshot drops the element.",
  },
  "R-SCHEMA-13": { by: ["R-EVT-6"], why: "MESSAGES_SNAPSHOT carries no subagentRunId (stripped as undescribed)." },
  "R-RUN-2": { by: ["R-RUN-1", "R-RUN-9"], why: "RUN_STARTED opens a run." },
  "R-RUN-3": { by: ["R-RUN-4", "R-PROC-3"], why: "Known outcomes are accepted; an unknown outcome is stripped." },
  "R-RUN-6": {
    by: ["R-RUN-11", "R-RUN-13", "D-RUN-ERROR"],
    why: "RUN_ERROR is forwarded as an event, not a rejection.",
  },
  "R-SUB-6": { by: ["#83"], why: "A value tagged with another subagent is stored: the tag is provenance only." },
  "R-SUB-7": { by: ["R-STATE-7"], why: "The same rule, stated on the state page." },
  "R-SUB-4": { by: ["R-RUN-11"], why: "RUN_ERROR ends whatever is open, subagent invocations included." },
  "R-ACT-1": { by: ["R-REASON-18"], why: "An activity message is never a storage target." },
  "R-ACT-2": { by: ["R-INPUT-4"], why: "Activity messages are stripped from outgoing messages." },
  "R-ACT-3": { by: ["R-STATE-5", "R-STATE-6"], why: "Snapshot survival of activity messages." },
  "R-SEC-1": { by: ["D-REDACT"], why: "Errors and warnings never carry reasoning text." },
  "R-SEC-2": { by: ["R-REASON-26", "D-ISSUER"], why: "Values go back only to the producer that issued them." },
  "R-SEC-3": {
    by: ["D-REDACT", "D-ISSUER"],
    why: "The consumer's half: confidentiality of reasoning and encrypted values.",
  },
};

/**
 * Decisions adopted but not implemented yet: listed as pending instead of missing until their tests
 * land. An id here that a test pins is a problem (the list must shrink as the work lands).
 */
export const PENDING_IMPLEMENTATION: readonly string[] = [];
