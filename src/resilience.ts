/**
 * agui-reasoning/resilience (docs/resilience.md) — for streams and consumers that are not the happy
 * path: resume a pipeline from `exportState()` (its snapshot format, and `resumable`, which makes one
 * the facade's `resumeFrom`), repair a broken stream before
 * the strict pipeline (`repairStream`, opt-in), downgrade a valid stream to a 0.x consumer
 * (`downcastToThinking`).
 */
export { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type PipelineSnapshot } from "./resume/pipeline-snapshot";
export { resumable, type Resumable } from "./resume/resumable";
export { repairStream, REPAIRED_TRUNCATION, type RepairOptions } from "./repair/repair-stream";
export { downcastToThinking, DowncastError, type DowncastOptions } from "./downcast/downcast-thinking";
