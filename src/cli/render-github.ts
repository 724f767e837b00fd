import { formatWarning } from "../core/warnings";
import { failureDetail, failureLine, moreWarnings, summary, type CheckOutcome } from "./outcome";

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
    const line = f.line ?? undefined;
    out.push(command("error", { file, line, title }, failureLine(f, f.eventIndex === null ? "" : failureDetail(f))));
  }
  for (const run of r.runs) {
    for (const w of run.warningsShown) {
      const line = w.eventIndex !== undefined ? r.lineOf(w.eventIndex) : undefined;
      out.push(command("warning", { file, line, title: `${w.code}${w.rule ? ` (${w.rule})` : ""}` }, formatWarning(w)));
    }
    const more = moreWarnings(run);
    if (more) out.push(command("notice", { file }, more));
  }
  out.push(`agui-reasoning check: ${r.label}: ${f ? `✗ ${f.code}: ${summary(r)} (exit 1)` : `✓ valid: ${summary(r)}`}`);
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
