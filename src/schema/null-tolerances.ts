import {
  AudioPartSchema,
  DocumentPartSchema,
  ImagePartSchema,
  ResumeEntrySchema,
  RunAgentInputSchema,
  RunFinishedEventSchema,
  SubagentFinishedEventSchema,
  ToolCallChunkEventSchema,
  ToolCallStartEventSchema,
  ToolSchema,
  VideoPartSchema,
} from "@ag-ui/core/schemas";

/**
 * The whole-field `null`s the deprecation registry tolerates until 2027-09-17 (R-DEP-6;
 * `spec/1.0/DEPRECATIONS.md`): each is converted to "absent" with a warning. Every other `null`
 * in place of an optional field — notably event/message `metadata: null`, `parentRunId: null`,
 * `subagentRunId: null` — stays malformed and fails the run (R-EVT-7, R-META-1, R-SUB-1).
 *
 * Keyed by schema object (the same objects the walker compiles), so a row applies exactly where
 * the registry says: `metadata: null` on an image part is tolerated, on a text part it is not.
 */
const ROWS: ReadonlyArray<readonly [schema: unknown, field: string]> = [
  [ToolCallStartEventSchema, "parentMessageId"],
  [ToolCallChunkEventSchema, "parentMessageId"],
  [RunFinishedEventSchema, "outcome"],
  [RunFinishedEventSchema, "result"],
  [SubagentFinishedEventSchema, "result"],
  [ResumeEntrySchema, "payload"],
  [ImagePartSchema, "metadata"],
  [AudioPartSchema, "metadata"],
  [VideoPartSchema, "metadata"],
  [DocumentPartSchema, "metadata"],
  [ToolSchema, "parameters"],
  [RunAgentInputSchema, "forwardedProps"],
];

/** The registry row "`rawEvent: null` on an event": applies to every event schema. */
const EVERY_EVENT_FIELD = "rawEvent";

/** The fields of `schema` whose whole-field `null` the registry tolerates (read once per schema, when its plan is compiled). */
export function toleratedNulls(schema: unknown, isEvent: boolean): ReadonlySet<string> {
  const fields = ROWS.filter(([s]) => s === schema).map(([, field]) => field);
  return new Set(isEvent ? [EVERY_EVENT_FIELD, ...fields] : fields);
}
