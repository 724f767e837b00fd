import { EventSchema } from "@ag-ui/core/schemas";
import { compileEventPlan, variantOptions, type ObjectPlan } from "./schema-plan";
import { asNode, type ZodNode } from "./zod-node";

/** One AG-UI 1.0 event type: its zod schema (the authority) and its strip plan (compiled on first use). */
export interface EventEntry {
  readonly type: string;
  readonly schema: ZodNode;
  /** The strip plan, compiled the first time an event of this type arrives. */
  plan(): ObjectPlan;
}

// Every 1.0 event type → its entry, read once from the `type` literals of `EventSchema`'s options.
let entries: ReadonlyMap<string, EventEntry> | undefined;

/** The entry for a 1.0 event type, or `undefined` for a type 1.0 does not describe (R-PROC-1). */
export function eventEntry(type: string): EventEntry | undefined {
  entries ??= buildEntries();
  return entries.get(type);
}

function buildEntries(): ReadonlyMap<string, EventEntry> {
  const map = new Map<string, EventEntry>();
  for (const [type, schema] of variantOptions(asNode(EventSchema), "type")) {
    let plan: ObjectPlan | undefined;
    map.set(type, { type, schema, plan: () => (plan ??= compileEventPlan(schema)) });
  }
  return map;
}
