import type { Stage, AguiEvent } from "../core/types";
import type { ExpandState } from "../chunks/lanes";
import type { VerifyState } from "../discipline/verify-state";
import type { HistoryState } from "../history/conversation";
import type { EnforceState } from "../schema/enforce-schema";
import type { UpcastState } from "../upcast/upcast-thinking";
import { JsonShape } from "../storage/json-shape";
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
  const shape = new JsonShape("resumeFrom");
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
  const restore = {
    upcast: readOnce(() => upcastStateFromJSON(doc.upcast, shape.at("/upcast"))),
    expand: readOnce(() => expandStateFromJSON(doc.chunks, shape.at("/chunks"))),
    verify: readOnce(() => verifyStateFromJSON(doc.discipline, shape.at("/discipline"))),
    history: readOnce(() => historyStateFromJSON(doc.history, shape.at("/history"), producer)),
  };
  return {
    index,
    resume: ([upcast, enforce, expand, verify, history]) => [
      resumedStage(upcast, restore.upcast),
      enforce,
      resumedStage(expand, restore.expand),
      resumedStage(verify, restore.verify),
      resumedStage(history, restore.history),
    ],
  };
}

/** Reads a state now and returns a restorer handing out that state first, then fresh reads. */
function readOnce<S>(read: () => S): () => S {
  let first: { state: S } | undefined = { state: read() };
  return () => {
    if (first === undefined) return read();
    const { state } = first;
    first = undefined;
    return state;
  };
}
