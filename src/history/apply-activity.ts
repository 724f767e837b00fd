import { sourceIndex } from "../core/source-pointer";
import { isPlainObject, jsonType } from "../core/json";
import type { ActivityMessage } from "@ag-ui/core";
import { result } from "../core/types";
import type { AguiEvent, StepContext, StepResult } from "../core/types";
import type { WarningRule } from "../core/warning-codes";
import type { Conversation } from "./conversation";
import { withMetadata } from "./apply-messages";
import { applyJsonPatch } from "./json-patch";
import {
  malformed,
  mergeMetadata,
  readMetadata,
  readObject,
  readField,
  readOptionalString,
  readOwnCopy,
  readString,
  roleName,
  warning,
} from "./read-event";

/**
 * Activity messages. ACTIVITY_SNAPSHOT creates one where it arrives or re-mints a held one (content,
 * type, attribution; metadata keeps merging), unless `replace: false`. ACTIVITY_DELTA applies its
 * RFC 6902 patch to the content (json-patch.ts) and retypes it. Both skip with a lossy
 * `ACTIVITY_SKIPPED` (R-ACT-5, R-SNAP-3) when the target is missing or not an activity message
 * (D-ACTIVITY-REPLACE) or the patch does not apply, never failing; such a delta still merges its
 * metadata (R-META-4).
 */

export function snapshotActivity(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "messageId", ctx);
  const activityType = readString(event, "activityType", ctx);
  const content = readObject(event, "content", ctx);
  const subagentRunId = readOptionalString(event, "subagentRunId", ctx);
  const metadata = readMetadata(event, ctx);
  const replace = readField(event, "replace", ctx);
  if (replace !== undefined && typeof replace !== "boolean") {
    throw malformed(event, ctx, `\`replace\` must be a boolean when present (got ${jsonType(replace)})`, [id]);
  }
  const position = conversation.positionOf(id);
  const held = position === undefined ? undefined : conversation.at(position)!;
  if (held !== undefined && held.role !== "activity") {
    return skipped(conversation, event, ctx, id, `names a held ${roleName(held.role)} message`, "D-ACTIVITY-REPLACE");
  }

  if (held !== undefined && replace === false) {
    if (metadata === undefined) return conversation.passing(event);
    return conversation.replaceAt(position!, withMetadata(held, metadata)).passing(event);
  }
  const message: ActivityMessage = { id, role: "activity", activityType, content };
  if (subagentRunId !== undefined) message.subagentRunId = subagentRunId;
  const merged = metadata === undefined ? held?.metadata : mergeMetadata(held?.metadata, metadata);
  if (merged !== undefined) message.metadata = merged;
  return (held === undefined ? conversation.append(message, true) : conversation.replaceAt(position!, message)).passing(
    event,
  );
}

export function patchActivity(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "messageId", ctx);
  const activityType = readString(event, "activityType", ctx);
  const metadata = readMetadata(event, ctx);
  // Its values land in the content: the package's own copy (D-NO-ALIAS).
  const patch = readOwnCopy(event, "patch", ctx);
  if (!Array.isArray(patch)) throw malformed(event, ctx, `\`patch\` must be an array (got ${jsonType(patch)})`, [id]);
  const position = conversation.positionOf(id);
  if (position === undefined) return skipped(conversation, event, ctx, id, "names no message this history holds");
  const held = conversation.at(position)!;
  if (held.role !== "activity")
    return skipped(conversation, event, ctx, id, `names a held ${roleName(held.role)} message`);
  const outcome = applyJsonPatch(held.content, patch, (i) => sourceIndex("/patch", i, ctx.shortened));
  const content = outcome.ok && isPlainObject(outcome.value) ? outcome.value : undefined;
  if (content === undefined) {
    const failure = outcome.ok
      ? "has a patch whose result is not an object"
      : `has a patch that does not apply: ${outcome.reason}`;
    // R-META-4: the metadata still lands; only the content stays as it was. The warning comes before
    // the edit (see history-stage.ts).
    const warned = skipped(conversation, event, ctx, id, failure, "R-ACT-5", metadata !== undefined);
    if (metadata === undefined) return warned;
    return conversation.replaceAt(position, withMetadata(held, metadata)).passing(event, warned.warnings);
  }
  const message: ActivityMessage = { ...held, activityType, content };
  if (metadata !== undefined) message.metadata = mergeMetadata(held.metadata, metadata);
  return conversation.replaceAt(position, message).passing(event);
}

function skipped(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  id: string,
  why: string,
  rule: WarningRule<"ACTIVITY_SKIPPED"> = "R-ACT-5",
  metadataMerged = false,
): StepResult<Conversation, AguiEvent> {
  const what = metadataMerged
    ? "its content change was not applied to history (its metadata was merged)"
    : "it was not applied to history";
  const w = warning("ACTIVITY_SKIPPED", rule, event, ctx, [id], `the event ${why}; ${what}`);
  return result(conversation, [event], [w]);
}
