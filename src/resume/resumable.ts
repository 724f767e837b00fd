import { rawField } from "../core/json";
import { readPipelineSnapshot, type PipelineSnapshot, type ResumePoint } from "./pipeline-snapshot";

/**
 * The key a `Resumable` keeps its reader under: a registered symbol, so that the main entry and
 * `agui-reasoning/resilience` agree on it however they were loaded (ESM or CommonJS, one bundle or two).
 */
export const READ_SNAPSHOT: unique symbol = Symbol.for("agui-reasoning/resumable");

/**
 * A snapshot made ready for `reasoningPipeline`'s `resumeFrom` (`resumable(snapshot)`). The facade
 * calls its reader when it is created; it does not import one, so an app that never resumes bundles
 * none of the snapshot's checks (about 2.4 KiB gzipped, docs/browser.md).
 */
export interface Resumable {
  /** @internal Reads and checks the snapshot for a pipeline whose `producer` is given. */
  readonly [READ_SNAPSHOT]: (producer: string | undefined) => ResumePoint;
}

/**
 * `snapshot` (a pipeline's `exportState()`, possibly through JSON text and storage) as the facade's
 * `resumeFrom`: `reasoningPipeline(source, { producer, resumeFrom: resumable(snapshot) })`. Nothing is
 * read here: the new pipeline reads it in full when it is created, and a broken one is a `TypeError`
 * naming the JSON pointer at fault (docs/resilience.md).
 */
export function resumable(snapshot: PipelineSnapshot): Resumable {
  return { [READ_SNAPSHOT]: (producer) => readPipelineSnapshot(snapshot, producer) };
}

/**
 * Where the facade resumes: what the `Resumable` given as `resumeFrom` reads, else a `TypeError` saying
 * what `resumeFrom` takes (the snapshot itself, as it took before `resumable`, is the likely mistake).
 */
export function resumePoint(resumeFrom: unknown, producer: string | undefined): ResumePoint {
  // A getter or proxy trap that throws counts as no reader (input is hostile).
  const read = rawField(resumeFrom, READ_SNAPSHOT);
  if (typeof read !== "function") {
    throw new TypeError(
      'agui-reasoning: resumeFrom takes `resumable(snapshot)` from "agui-reasoning/resilience", not the snapshot itself',
    );
  }
  return (read as Resumable[typeof READ_SNAPSHOT])(producer);
}
