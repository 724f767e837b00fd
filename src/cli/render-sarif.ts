import { formatWarning } from "../core/warnings";
import { version } from "../../package.json";
import { EXPLANATIONS } from "./explain";
import { failureDetail, failureLine, moreWarnings, type CheckOutcome } from "./outcome";
import { printable } from "./printable";

/** The SARIF version written, and the schema a consumer validates it with. */
const SARIF_VERSION = "2.1.0";
const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/**
 * `--format sarif`: one SARIF 2.1.0 log for code scanning (`upload-sarif`): a rule per code seen (its
 * rule or decision id in `properties`), the failure an `error` and each listed warning a `warning`
 * result, located on the recording's file and line when known. Ids, types and counts only
 * (D-REDACT); control characters escaped, as GitHub's annotations show them.
 */
export function renderSarif(r: CheckOutcome, file: string | undefined): string {
  // Their shape is SARIF's (test/integration/cli-sarif.test.ts validates the log against its schema).
  const rules: unknown[] = [];
  const ruleIndex = new Map<string, number>();
  const ruleOf = (code: string, rule: string | undefined, text: string): number => {
    const known = ruleIndex.get(code);
    if (known !== undefined) return known;
    rules.push({
      id: code,
      shortDescription: { text },
      properties: { rule: rule || undefined, tags: ["ag-ui", rule?.startsWith("D-") ? "decision" : "protocol"] },
    });
    ruleIndex.set(code, rules.length - 1);
    return rules.length - 1;
  };
  // Keys left `undefined` are left out of the log by JSON.stringify.
  const uri = file?.replace(/\\/g, "/");
  const at = (line: number | undefined): readonly unknown[] | undefined =>
    uri === undefined
      ? undefined
      : [
          {
            physicalLocation: {
              artifactLocation: { uri },
              region: line !== undefined ? { startLine: line } : undefined,
            },
          },
        ];

  const results: unknown[] = [];
  const f = r.failure;
  if (f) {
    results.push({
      ruleId: f.code,
      ruleIndex: ruleOf(
        f.code,
        f.explanation.rule,
        sentence(EXPLANATIONS[f.code as keyof typeof EXPLANATIONS] ?? f.code),
      ),
      level: "error",
      message: { text: printable(failureLine(f, failureDetail(f))) },
      locations: at(f.line ?? undefined),
      properties: { rule: f.explanation.rule, eventIndex: f.eventIndex, ids: f.ids },
    });
  }
  for (const run of r.runs) {
    for (const w of run.warningsShown) {
      results.push({
        ruleId: w.code,
        ruleIndex: ruleOf(w.code, w.rule, `agui-reasoning warning ${w.code}${w.lossy ? " (lossy)" : ""}`),
        level: "warning",
        message: { text: printable(formatWarning(w)) },
        locations: at(w.eventIndex !== undefined ? r.lineOf(w.eventIndex) : undefined),
        properties: {
          rule: w.rule ?? null,
          eventIndex: w.eventIndex ?? null,
          lostContent: w.lossy === true,
          run: run.number,
        },
      });
    }
    const more = moreWarnings(run);
    if (more) {
      results.push({
        ruleId: "MORE_WARNINGS",
        ruleIndex: ruleOf("MORE_WARNINGS", undefined, "more warnings than the log lists; --json lists them all"),
        level: "note",
        message: { text: more },
        locations: at(undefined),
      });
    }
  }
  const log = {
    $schema: SARIF_SCHEMA,
    version: SARIF_VERSION,
    runs: [
      {
        tool: {
          driver: {
            name: "agui-reasoning check",
            version,
            informationUri: "https://www.npmjs.com/package/agui-reasoning",
            rules,
          },
        },
        artifacts: uri !== undefined ? [{ location: { uri } }] : undefined,
        invocations: [{ executionSuccessful: true, exitCode: f ? 1 : 0 }],
        results,
        properties: { input: r.label, format: r.format ?? null, events: r.totalEvents },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

const sentence = (text: string): string => `${text[0]!.toUpperCase()}${text.slice(1)}.`;
