import type { ReasoningWarning } from "./types";

/**
 * Whether a warning reports lost content (R-REASON-19, R-VER-6/7), so that `quiet` never silences it:
 * always (`true`), never (`false`), or `"when-content"` — when the event it drops carried content (a
 * non-empty delta, a title, metadata, an invocation's name).
 */
export type Lossiness = boolean | "when-content";

/** One catalogued warning code: the rules and decisions it is emitted under, each with its lossiness. */
export interface WarningCodeInfo {
  readonly rules: { readonly [rule: string]: Lossiness };
}

/**
 * Every warning code this package emits (D-WARN), with the rule or decision id each warning names and
 * whether it is lossy then. Stable: users match on `code`. docs/errors.md describes each one and is
 * checked against this table (test/traceability/errors-doc.test.ts); every warning is built by
 * `catalogued` below, which takes its `rule` from here and derives `lossy`, so a warning cannot
 * disagree with its entry. Adding a code is one line here (and its row in docs/errors.md).
 */
export const WARNING_CODES = {
  // upcastThinking
  THINKING_UPCAST: { rules: { "R-DEP-4": false } },
  THINKING_TITLE_MOVED: { rules: { "D-THINK-TITLE": false } },
  THINKING_TITLE_DROPPED: { rules: { "R-VER-12": true } },
  // enforceSchema (UNKNOWN_UNION_MEMBER and UNKNOWN_SUBTYPE also from the history stage run alone)
  UNKNOWN_EVENT_TYPE: { rules: { "R-PROC-1": false } },
  STRIPPED_PROPERTY: { rules: { "R-PROC-2": false } },
  UNKNOWN_UNION_MEMBER: { rules: { "R-PROC-3": false, "R-PROC-11": true } },
  UNKNOWN_SUBTYPE: { rules: { "R-REASON-24": true } },
  NULL_TOLERATED: { rules: { "R-DEP-6": false } },
  PROTOCOL_VERSION: { rules: { "R-VER-16": false, "R-VER-17": false } },
  // verifyDiscipline
  RUN_ID_MISMATCH: { rules: { "D-RUN-ID": false } },
  // the history stage (deriveHistory)
  UNKNOWN_ENTITY: { rules: { "D-UNKNOWN-ENTITY": true } },
  TARGET_REMOVED: { rules: { "D-SNAPSHOT-OPEN": true } },
  TARGET_REPLACED: { rules: { "D-SNAPSHOT-ROLE": true } },
  DUPLICATE_MESSAGE_ID: { rules: { "R-EVT-8": true, "D-TOOL-RESULT-ID": false } },
  TOOL_CALL_PARENT_CONFLICT: { rules: { "R-TOOL-1": false } },
  ACTIVITY_SKIPPED: { rules: { "R-ACT-5": true, "D-ACTIVITY-REPLACE": true } },
  // run input and storage
  VALUE_WITHHELD: { rules: { "D-ISSUER": true } },
  VALUE_NOT_STORED: { rules: { "R-REASON-19": true } },
  // repairStream (opt-in): the rule the repaired event broke
  REPAIRED_ORPHAN_DROPPED: {
    rules: {
      "R-REASON-9": "when-content",
      "R-REASON-10": "when-content",
      "R-TEXT-9": "when-content",
      "R-TOOL-6": "when-content",
      "R-RUN-12": "when-content",
      "R-SUB-5": "when-content",
      "D-THINK-ORPHAN": "when-content",
    },
  },
  REPAIRED_DUPLICATE_OPEN_DROPPED: {
    rules: {
      "R-REASON-10": "when-content",
      "R-REASON-11": "when-content",
      "R-TEXT-9": "when-content",
      "R-TOOL-6": "when-content",
      "R-RUN-12": "when-content",
      "R-SUB-5": "when-content",
    },
  },
  REPAIRED_CLOSED_AT_FINISH: { rules: { "R-REASON-13": false } },
  REPAIRED_TRUNCATED_RUN: { rules: { "D-TRUNC": true } },
  REPAIRED_NESTED_RUN: { rules: { "R-RUN-9": true } },
  REPAIRED_OUTSIDE_RUN_DROPPED: { rules: { "R-RUN-1": true, "R-RUN-8": true } },
  // downcastToThinking (opt-in)
  DOWNCAST_ID_DROPPED: { rules: { "R-VER-6": true } },
  DOWNCAST_METADATA_DROPPED: { rules: { "R-VER-6": true } },
  DOWNCAST_VALUE_DROPPED: { rules: { "R-REASON-19": true } },
  // What reading the input found (the stream then ends there, R-TRANS-2): agui-reasoning check; a broken
  // connection also agentEvents and the middleware (src/integration/transport-end.ts, D-PATHS)
  RECORDING_CUT: { rules: { "R-TRANS-2": true } },
  CONNECTION_BROKEN: { rules: { "R-TRANS-2": true } },
  // agui-reasoning check: its lint rules (src/cli/lint-rules.ts), not raised by the pipeline
  MESSAGE_ID_REUSED: { rules: { "R-EVT-8": false } },
  SNAPSHOT_DROPS_REASONING: { rules: { "R-REASON-20": false } },
  REASONING_ROLE: { rules: { "R-SCHEMA-2": false } },
  REASONING_WITHOUT_TIMESTAMP: { rules: { "D-DURATION": false } },
} as const satisfies Readonly<Record<string, WarningCodeInfo>>;

/** A warning code of `WARNING_CODES`: the type of `ReasoningWarning.code`. */
export type ReasoningWarningCode = keyof typeof WARNING_CODES;

type RulesOf<C extends ReasoningWarningCode> = (typeof WARNING_CODES)[C]["rules"];

/** The rules a warning of code `C` may name. */
export type WarningRule<C extends ReasoningWarningCode> = keyof RulesOf<C> & string;

/** What a warning says besides its code, rule and lossiness. */
export type WarningDetails = Omit<ReasoningWarning, "code" | "rule" | "lossy">;

/**
 * Builds the warning `code` under `rule`, lossy as the catalogue says (`contentLost` decides a
 * `"when-content"` entry and is ignored otherwise). The only way this package builds a warning: a code or rule not in the
 * catalogue does not compile, and `lossy` cannot disagree with it.
 */
export function catalogued<C extends ReasoningWarningCode>(
  code: C,
  rule: WarningRule<C>,
  details: WarningDetails,
  contentLost = false,
): ReasoningWarning {
  const lossiness = (WARNING_CODES[code].rules as { readonly [rule: string]: Lossiness | undefined })[rule];
  // An entry the types guarantee; were it missing, the warning counts as lossy (never silenced).
  const lossy = lossiness === "when-content" ? contentLost : lossiness !== false;
  return lossy ? { code, rule, ...details, lossy: true } : { code, rule, ...details };
}
