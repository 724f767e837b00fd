import { EventType } from "@ag-ui/core";
import { quotedId } from "../core/errors";
import type { Stage, AguiEvent } from "../core/types";
import { runItems } from "../discipline/open-items";
import type { Conversation } from "../history/conversation";
import type { ExpandState } from "../chunks/lanes";
import type { VerifyState } from "../discipline/verify-state";
import type { HistoryState } from "../history/conversation";
import type { EnforceState } from "../schema/enforce-schema";
import type { UpcastState } from "../upcast/upcast-thinking";
import { JsonShape } from "../storage/json-shape";
import { readerCopy } from "../storage/stored-copy";
import { sameProducer, shownIdentity } from "../history/producer-identity";
import { expandStateFromJSON, expandStateToJSON, type ExpandStateJSON } from "./chunk-codec";
import { verifyStateFromJSON, verifyStateToJSON, type VerifyStateJSON } from "./discipline-codec";
import { historyStateFromJSON, historyStateToJSON, type HistoryStateJSON } from "./history-codec";
import { resumedStage } from "./resumed-stage";
import { upcastStateFromJSON, upcastStateToJSON, type UpcastStateJSON } from "./upcast-codec";

/** The format tag of a pipeline snapshot. */
export const SNAPSHOT_FORMAT = "agui-reasoning/pipeline-state";
/** The version this package writes and reads. */
export const SNAPSHOT_VERSION = 1;

/**
 * Where a `reasoningPipeline` stands in its source, as plain JSON (`exportState()`): give it to a new
 * pipeline as `resumeFrom` and a reconnected stream is validated as the continuation of the first —
 * same events, history, warnings and errors as one uninterrupted stream, error indexes included.
 * Round-trips through `JSON.stringify`/`JSON.parse`. It holds the history (reasoning text and
 * encrypted values included): keep it with the conversation's confidentiality (R-REASON-25).
 */
export interface PipelineSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_VERSION;
  /** The `producer` of the exporting pipeline (D-ISSUER); `null` when none was configured. */
  readonly producer: string | null;
  /** Source events consumed: the index the next source event gets. */
  readonly index: number;
  /** Legacy `THINKING_*` items open (upcastThinking). */
  readonly upcast: UpcastStateJSON;
  /** Chunk streams open, lane by lane (expandChunks). */
  readonly chunks: ExpandStateJSON;
  /** Run phase, the run's items, known message roles (verifyDiscipline). */
  readonly discipline: VerifyStateJSON;
  /** The history with its incomplete items and issuers, and the items still open in it. */
  readonly history: HistoryStateJSON;
}

/** The facade's stages, in chain order (enforcement keeps no state). */
export type FacadeStages = readonly [
  Stage<UpcastState, unknown, AguiEvent>,
  Stage<EnforceState, unknown, AguiEvent>,
  Stage<ExpandState, AguiEvent, AguiEvent>,
  Stage<VerifyState, AguiEvent, AguiEvent>,
  Stage<HistoryState, AguiEvent, AguiEvent>,
];

/** The states `exportState` reads. */
export interface FacadeStates {
  readonly upcast: UpcastState;
  readonly expand: ExpandState;
  readonly verify: VerifyState;
  readonly history: HistoryState;
}

export function exportPipelineState(
  states: FacadeStates,
  index: number,
  producer: string | undefined,
): PipelineSnapshot {
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    producer: producer ?? null,
    index,
    upcast: upcastStateToJSON(states.upcast),
    chunks: expandStateToJSON(states.expand),
    discipline: verifyStateToJSON(states.verify),
    history: historyStateToJSON(states.history),
  };
}

/** A checked snapshot: where the source continues, and the facade's stages starting from it. */
export interface ResumePoint {
  readonly index: number;
  resume(stages: FacadeStages): FacadeStages;
}

/**
 * Checks a snapshot once, at pipeline creation, so that a truncated or broken one is a `TypeError`
 * naming the JSON pointer at fault, before any event flows (never the content there, D-REDACT).
 * Every stage state is read in full here; `resume` reads them again per subscription.
 */
export function readPipelineSnapshot(json: unknown, producer: string | undefined): ResumePoint {
  // A snapshot given as a value (not text) is read as strictly as a stored history (D-HISTORY-IDS):
  // exportState() writes JSON data only, and a Date put into it is refused, not read as {}.
  const shape = new JsonShape("resumeFrom", "", readerCopy(json));
  const doc = shape.object(shape.parsed(json), "");
  shape.header(doc, SNAPSHOT_FORMAT, SNAPSHOT_VERSION);
  const exportedFor = shape.stringOrNull(doc.producer, "/producer");
  if (exportedFor !== producer && (producer === undefined || !sameProducer(exportedFor, producer))) {
    // Values stored after the resume would be recorded for another issuer than those before it (D-ISSUER).
    shape.fail(
      "/producer",
      `names another producer than this pipeline's \`producer\` option (${shownIdentity(exportedFor)} in the snapshot, ${shownIdentity(producer)} here, D-IDENTITY); resume with the same producer`,
    );
  }
  const index = shape.count(doc.index, "/index");
  // Each state is read (and so checked) now; the first init takes it, later ones read it again.
  const upcast = readOnce(() => upcastStateFromJSON(doc.upcast, shape.at("/upcast")));
  const expand = readOnce(() => expandStateFromJSON(doc.chunks, shape.at("/chunks")));
  const verify = readOnce(() => verifyStateFromJSON(doc.discipline, shape.at("/discipline")));
  const history = readOnce(() => historyStateFromJSON(doc.history, shape.at("/history"), producer));
  checkOpenAlike(shape, verify.first, history.first);
  return {
    index,
    resume: ([upcastStage, enforce, expandStage, verifyStage, historyStage]) => [
      resumedStage(upcastStage, upcast.restore),
      enforce,
      resumedStage(expandStage, expand.restore),
      resumedStage(verifyStage, verify.restore),
      resumedStage(historyStage, history.restore),
    ],
  };
}

/** A state read now (`first`), and a restorer handing out that state first, then fresh reads. */
function readOnce<S>(read: () => S): { readonly first: S; restore: () => S } {
  const first = read();
  let taken = false;
  return {
    first,
    restore: () => {
      if (taken) return read();
      taken = true;
      return first;
    },
  };
}

/**
 * The messages and tool calls open in the run (discipline) are those the history holds open, or a
 * snapshot removed while open (D-SNAPSHOT-OPEN), and no others: an edited snapshot that disagrees
 * would fail later, at an event of the producer's, for a fault of the snapshot's.
 */
function checkOpenAlike(shape: JsonShape, verify: VerifyState, history: HistoryState): void {
  const { parts } = history as Conversation;
  const kinds = [
    [
      "messages",
      [EventType.REASONING_MESSAGE_START, EventType.TEXT_MESSAGE_START],
      parts.openMessages,
      parts.removedMessages,
    ],
    ["toolCalls", [EventType.TOOL_CALL_START], parts.openToolCalls, parts.removedToolCalls],
  ] as const;
  for (const [list, families, open, removed] of kinds) {
    const inRun = new Set<string>();
    for (const { family, id, item } of runItems(verify.sets))
      if (item.open && (families as readonly string[]).includes(family.open)) inRun.add(id);
    const held = [...open.toArray(), ...removed.toArray()];
    for (const id of held)
      if (!inRun.has(id))
        shape.fail(`/history/open/${list}`, `names ${quotedId(id)}, which /discipline/items does not hold open`);
    const inHistory = new Set(held);
    for (const id of inRun)
      if (!inHistory.has(id))
        shape.fail("/discipline/items", `hold ${quotedId(id)} open, which /history/open/${list} does not name`);
  }
}
