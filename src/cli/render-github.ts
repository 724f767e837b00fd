import { formatWarning } from "../core/warnings";
import { count, failureDetail, runCount, type CheckOutcome } from "./outcome";

/**
 * `--format github`: GitHub Actions workflow commands — `::error` for the failure and `::warning`
 * for each listed warning, with `file` (a recording; not stdin or a URL) and `line` where the input has
 * lines, so the annotation sits on the recording in the pull request — then a one-line summary.
 */
export function renderGithub(r: CheckOutcome, file: string | undefined): string {
  const out: string[] = [];
  const f = r.failure;
  if (f) {
    const title = `${f.code} (${f.explanation.rule})`;
    const where = f.eventIndex === null ? "" : ` at event #${f.eventIndex}${f.eventType ? ` ${f.eventType}` : ""}`;
    out.push(
      command(
        "error",
        { file, line: f.line ?? undefined, title },
        `${f.code}${where}: ${f.explanation.text}. ${f.eventIndex === null ? "" : failureDetail(f)}`.trim(),
      ),
    );
  }
  for (const run of r.runs) {
    for (const w of run.warningsShown) {
      const line = w.eventIndex !== undefined ? r.lineOf(w.eventIndex) : undefined;
      out.push(command("warning", { file, line, title: `${w.code}${w.rule ? ` (${w.rule})` : ""}` }, formatWarning(w)));
    }
    const more = run.warnings - run.warningsShown.length;
    if (more > 0)
      out.push(
        command(
          "notice",
          { file },
          `${more.toLocaleString("en-US")} more warnings in run ${run.number} (--json lists them all)`,
        ),
      );
  }
  const summary = `${count(runCount(r), "run")}, ${count(r.warnings, "warning")}`;
  out.push(
    f
      ? `agui-reasoning check: ${r.label}: ✗ ${f.code}: ${summary} (exit 1)`
      : `agui-reasoning check: ${r.label}: ✓ valid: ${summary}`,
  );
  return `${out.join("\n")}\n`;
}

/** `::error file=…,line=…,title=…::message`, escaped as the runner expects. */
function command(
  kind: "error" | "warning" | "notice",
  props: { file: string | undefined; line?: number; title?: string },
  message: string,
): string {
  const parts: string[] = [];
  if (props.file !== undefined) parts.push(`file=${escapeProperty(props.file)}`);
  if (props.file !== undefined && props.line !== undefined) parts.push(`line=${props.line}`);
  if (props.title !== undefined) parts.push(`title=${escapeProperty(props.title)}`);
  return `::${kind}${parts.length > 0 ? ` ${parts.join(",")}` : ""}::${escapeData(message)}`;
}

function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
