import { formatWarning } from "../core/warnings";
import { count, failureDetail, type CheckOutcome } from "./outcome";
import type { RunReport } from "./run-report";

/**
 * `--format junit`: JUnit XML, one test suite for the input and one test case per run; the run the
 * failure happened in fails (`<failure type="CODE">`), its warnings go to `<system-out>`. A stream
 * with no run is one failing test case `stream` (unless `--allow-empty`).
 */
export function renderJunit(r: CheckOutcome): string {
  const f = r.failure;
  const cases: string[] = [];
  const runs = r.runs;
  // The failure belongs to the run it ended (the last one), or to the stream when there is none.
  const failedRun = f && runs.length > 0 ? runs[runs.length - 1] : undefined;
  const failed = f && failure(f.code, `${f.code} (${f.explanation.rule}): ${f.explanation.text}`, failureDetail(f));
  for (const run of runs) {
    const name = run.number === 0 ? "before any run" : `run ${run.number}${run.runId ? ` (runId ${run.runId})` : ""}`;
    const body: string[] = [];
    if (run === failedRun && failed) body.push(failed);
    const out = systemOut(run);
    if (out) body.push(out);
    cases.push(testCase(name, body));
  }
  if (failed && !failedRun) cases.push(testCase("stream", [failed]));
  const failures = f ? 1 : 0;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="agui-reasoning check" tests="${cases.length}" failures="${failures}" errors="0">`,
    `  <testsuite name="${attr(r.label)}" tests="${cases.length}" failures="${failures}" errors="0">`,
    `    <properties><property name="events" value="${r.totalEvents}"/><property name="warnings" value="${r.warnings}"/></properties>`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    "",
  ].join("\n");
}

function testCase(name: string, body: readonly string[]): string {
  if (body.length === 0) return `    <testcase classname="agui-reasoning" name="${attr(name)}"/>`;
  return [`    <testcase classname="agui-reasoning" name="${attr(name)}">`, ...body, `    </testcase>`].join("\n");
}

function failure(type: string, message: string, detail: string): string {
  return `      <failure type="${attr(type)}" message="${attr(message)}">${text(detail)}</failure>`;
}

function systemOut(run: RunReport): string | undefined {
  if (run.warnings === 0) return undefined;
  const lines = run.warningsShown.map(formatWarning);
  const more = run.warnings - run.warningsShown.length;
  if (more > 0) lines.push(`… and ${more.toLocaleString("en-US")} more`);
  return `      <system-out>${text(`${count(run.warnings, "warning")}\n${lines.join("\n")}`)}</system-out>`;
}

/** XML 1.0 text: escaped, and without the characters XML cannot hold. */
function text(s: string): string {
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

function attr(s: string): string {
  return text(s).replace(/"/g, "&quot;").replace(/\n/g, "&#10;");
}
