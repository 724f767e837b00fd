import { EventType } from "@ag-ui/core";
import { TextMessageRoleSchema } from "@ag-ui/core/schemas";

/**
 * The three chunk families, described as data (D-SCOPE-FAMILIES): one expansion routine reads this
 * table instead of having a branch per family.
 */

/** The id space an item's id lives in. Text and reasoning messages share one (message ids are unique per thread, R-EVT-8). */
export type IdNamespace = "message" | "tool-call";

/** A field the first chunk of an item establishes and a continuation may only repeat (R-STREAM-10/14). */
export interface OpenerField {
  readonly name: string;
  /** A first chunk without it cannot open the item (R-STREAM-11): the tool name. */
  readonly required: boolean;
  /** The value an absent field establishes, so a later repeat is judged against it (R-STREAM-14: text role → assistant). */
  readonly byOmission: string | undefined;
  /** The schema's closed set of values, when it has one (judged, never coerced: R-PROC-16). */
  readonly oneOf: ReadonlySet<string> | undefined;
}

export interface ChunkFamily {
  /** Position in `CHUNK_FAMILIES` (indexes per-family state arrays). */
  readonly index: number;
  readonly chunkType: string;
  /** How messages name the item ("text message", "tool call", "reasoning message"). */
  readonly itemName: string;
  readonly idField: "messageId" | "toolCallId";
  readonly namespace: IdNamespace;
  readonly startType: string;
  readonly contentType: string;
  readonly endType: string;
  readonly openerFields: readonly OpenerField[];
  /**
   * Fields the synthesized START always carries, whatever the chunk says. The reasoning chunk has no
   * `role`, but `REASONING_MESSAGE_START.role` is required and fixed (R-SCHEMA-2/5).
   */
  readonly fixedStartFields: Readonly<Record<string, string>>;
}

const TEXT_MESSAGE_ROLES: ReadonlySet<string> = new Set(TextMessageRoleSchema.options);

const field = (name: string, byOmission?: string, oneOf?: ReadonlySet<string>): OpenerField => ({
  name,
  required: false,
  byOmission,
  oneOf,
});

export const CHUNK_FAMILIES: readonly ChunkFamily[] = [
  {
    index: 0,
    chunkType: EventType.TEXT_MESSAGE_CHUNK,
    itemName: "text message",
    idField: "messageId",
    namespace: "message",
    startType: EventType.TEXT_MESSAGE_START,
    contentType: EventType.TEXT_MESSAGE_CONTENT,
    endType: EventType.TEXT_MESSAGE_END,
    // An absent role means assistant, exactly as on TEXT_MESSAGE_START (R-STREAM-10, R-TEXT-3).
    openerFields: [field("role", "assistant", TEXT_MESSAGE_ROLES), field("name")],
    fixedStartFields: {},
  },
  {
    index: 1,
    chunkType: EventType.TOOL_CALL_CHUNK,
    itemName: "tool call",
    idField: "toolCallId",
    namespace: "tool-call",
    startType: EventType.TOOL_CALL_START,
    contentType: EventType.TOOL_CALL_ARGS,
    endType: EventType.TOOL_CALL_END,
    openerFields: [
      { name: "toolCallName", required: true, byOmission: undefined, oneOf: undefined },
      field("parentMessageId"),
    ],
    fixedStartFields: {},
  },
  {
    index: 2,
    chunkType: EventType.REASONING_MESSAGE_CHUNK,
    itemName: "reasoning message",
    idField: "messageId",
    namespace: "message",
    startType: EventType.REASONING_MESSAGE_START,
    contentType: EventType.REASONING_MESSAGE_CONTENT,
    endType: EventType.REASONING_MESSAGE_END,
    openerFields: [],
    fixedStartFields: { role: "reasoning" },
  },
];

/** Chunk event type → its family. */
export const FAMILY_BY_CHUNK_TYPE: ReadonlyMap<string, ChunkFamily> = new Map(
  CHUNK_FAMILIES.map((f) => [f.chunkType, f]),
);
