/**
 * Explains one saved case (a file of test/regressions/): `npx tsx test/property/explain-case.ts <file>`.
 * Prints what the reference model and the pipeline did, then every disagreement. Honours MODEL_ACCEPT.
 */
import { readFileSync } from "node:fs";
import { canonical, compare, runModel, runPipeline, type StreamCase } from "./harness";
import { ReasoningProtocolError } from "../../src";

const file = process.argv[2];
if (file === undefined) throw new Error("usage: npx tsx test/property/explain-case.ts <case.json>");
const c = JSON.parse(readFileSync(file, "utf8")) as StreamCase;
const model = runModel(c);
const pipeline = runPipeline(c);
const error =
  pipeline.error instanceof ReasoningProtocolError
    ? `${pipeline.error.code} at #${pipeline.error.eventIndex}`
    : String(pipeline.error ?? "");
console.log(
  `model:    ${model.outcome} ${model.errorCode ?? ""}${model.errorIndex !== undefined ? ` at #${model.errorIndex}` : ""} warnings [${model.warningCodes.join(", ")}]`,
);
console.log(`pipeline: ${pipeline.outcome} ${error} warnings [${pipeline.warnings.map((w) => w.code).join(", ")}]`);
console.log(`model messages:    ${canonical(model.history.messages)}`);
console.log(`pipeline messages: ${canonical(pipeline.messages)}`);
const problems = compare(c, pipeline, model);
console.log(problems.length === 0 ? "they agree" : problems.join("\n"));
