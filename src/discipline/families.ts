import { EventType } from "@ag-ui/core";
import type { AguiEvent } from "../core/types";

/**
 * The families of bracketed items the verifier tracks (D-SCOPE-FAMILIES). One generic mechanism
 * (`open-items.ts`) runs over these rows; nothing else in the verifier knows a family by name.
 */
export interface Family {
  /** Position in `FAMILIES` (index of the family's open set in the state). */
  readonly index: number;
  /** Noun for messages: "reasoning message" (the plural adds an "s"). */
  readonly noun: string;
  readonly open: EventType;
  readonly continues: readonly EventType[];
  readonly closes: readonly EventType[];
  /** The field holding the item's id. */
  readonly key: "messageId" | "toolCallId" | "stepName" | "subagentRunId";
  readonly rules: FamilyRules;
  /**
   * Tracked per owner (`subagentRunId`, absent = parent agent): the same id may be open once per
   * owner, and each owner closes its own (steps, R-RUN-12 and the subagents page).
   */
  readonly perOwner: boolean;
  /** A continuation's `subagentRunId` must agree with the opener's (R-SUB-2). False when the key *is* the tag. */
  readonly attributed: boolean;
  /** A closed id may be opened again in the same run (R-TEXT-5, R-REASON-11, #6); subagent ids may not. */
  readonly reopenable: boolean;
  /** The START declares a message with this role (D-ROLE-CONFLICT). */
  readonly declaresRole?: (event: AguiEvent) => string;
  /** A family with a separate namespace that producers confuse with this one (R-REASON-12/14). */
  readonly separateFrom?: number;
  /** A field of the opener that must name an item of this family announced in this run. */
  readonly parentField?: "parentSubagentRunId";
}

/** The rule each violation of a family breaks. */
export interface FamilyRules {
  /** A CONTENT or END naming an item that is not open, or an opener naming a parent never announced. */
  readonly orphan: string;
  readonly duplicateOpen: string;
  readonly openAtFinish: string;
  readonly attribution: string;
}

/** The rules of a family whose every violation breaks `rule`, but a tag that disagrees with its opener's. */
const everyRule = (rule: string, attribution = "R-SUB-2"): FamilyRules => ({
  orphan: rule,
  duplicateOpen: rule,
  openAtFinish: rule,
  attribution,
});

/** What most families are: one item per id (not per owner), attributed, reopenable. */
const ITEM = { perOwner: false, attributed: true, reopenable: true } as const;

const SPAN = 0;
const REASONING_MESSAGE = 1;

export const FAMILIES: readonly Family[] = [
  {
    index: SPAN,
    noun: "reasoning span",
    open: EventType.REASONING_START,
    continues: [],
    closes: [EventType.REASONING_END],
    key: "messageId",
    rules: {
      orphan: "R-REASON-10",
      duplicateOpen: "R-REASON-10",
      openAtFinish: "R-REASON-13",
      attribution: "D-SPAN-OWNER",
    },
    ...ITEM,
    separateFrom: REASONING_MESSAGE,
  },
  {
    index: REASONING_MESSAGE,
    noun: "reasoning message",
    open: EventType.REASONING_MESSAGE_START,
    continues: [EventType.REASONING_MESSAGE_CONTENT],
    closes: [EventType.REASONING_MESSAGE_END],
    key: "messageId",
    rules: {
      orphan: "R-REASON-9",
      duplicateOpen: "R-REASON-11",
      openAtFinish: "R-REASON-13",
      attribution: "R-SUB-2",
    },
    ...ITEM,
    declaresRole: () => "reasoning",
    separateFrom: SPAN,
  },
  {
    index: 2,
    noun: "text message",
    open: EventType.TEXT_MESSAGE_START,
    continues: [EventType.TEXT_MESSAGE_CONTENT],
    closes: [EventType.TEXT_MESSAGE_END],
    key: "messageId",
    rules: everyRule("R-TEXT-9"),
    ...ITEM,
    declaresRole: (event) => (typeof event.role === "string" ? event.role : "assistant"),
  },
  {
    index: 3,
    noun: "tool call",
    open: EventType.TOOL_CALL_START,
    continues: [EventType.TOOL_CALL_ARGS],
    closes: [EventType.TOOL_CALL_END],
    key: "toolCallId",
    rules: everyRule("R-TOOL-6"),
    ...ITEM,
  },
  {
    index: 4,
    noun: "step",
    open: EventType.STEP_STARTED,
    continues: [],
    closes: [EventType.STEP_FINISHED],
    key: "stepName",
    rules: everyRule("R-RUN-12"),
    ...ITEM,
    perOwner: true,
  },
  {
    index: 5,
    noun: "subagent invocation",
    open: EventType.SUBAGENT_STARTED,
    continues: [],
    closes: [EventType.SUBAGENT_FINISHED, EventType.SUBAGENT_ERROR],
    key: "subagentRunId",
    rules: everyRule("R-SUB-5", "R-SUB-5"),
    perOwner: false,
    attributed: false,
    reopenable: false,
    parentField: "parentSubagentRunId",
  },
];

/** The rule for a fragment naming an id that is open only in the separate namespace (R-REASON-14). */
export const NAMESPACE_RULE = "R-REASON-14";

/** What an event type means to the verifier. Types not in `ROUTES` only need an open run (R-STREAM-6). */
export type Route =
  | { readonly kind: "open" | "continue" | "close"; readonly family: Family }
  | { readonly kind: "run-started" | "run-finished" | "run-error" | "chunk" | "snapshot" }
  /** A standalone event that creates a message of a fixed role (D-ROLE-CONFLICT bookkeeping only). */
  | { readonly kind: "declares-message"; readonly role: string };

function buildRoutes(): ReadonlyMap<string, Route> {
  const routes = new Map<string, Route>();
  for (const family of FAMILIES) {
    routes.set(family.open, { kind: "open", family });
    for (const t of family.continues) routes.set(t, { kind: "continue", family });
    for (const t of family.closes) routes.set(t, { kind: "close", family });
  }
  routes.set(EventType.RUN_STARTED, { kind: "run-started" });
  routes.set(EventType.RUN_FINISHED, { kind: "run-finished" });
  routes.set(EventType.RUN_ERROR, { kind: "run-error" });
  // Verification must only ever see expanded events (R-STREAM-7).
  routes.set(EventType.TEXT_MESSAGE_CHUNK, { kind: "chunk" });
  routes.set(EventType.TOOL_CALL_CHUNK, { kind: "chunk" });
  routes.set(EventType.REASONING_MESSAGE_CHUNK, { kind: "chunk" });
  routes.set(EventType.MESSAGES_SNAPSHOT, { kind: "snapshot" });
  routes.set(EventType.TOOL_CALL_RESULT, { kind: "declares-message", role: "tool" });
  routes.set(EventType.ACTIVITY_SNAPSHOT, { kind: "declares-message", role: "activity" });
  return routes;
}

/** Event type → route, built once from the table. */
export const ROUTES: ReadonlyMap<string, Route> = buildRoutes();
