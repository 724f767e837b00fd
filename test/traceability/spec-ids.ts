import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** A rule, decision or edge case of the spec documents. */
export interface SpecId {
  /** `R-REASON-14`, `D-TRUNC`, `#36`. */
  readonly id: string;
  /** The section it is listed under, e.g. `§1 Reasoning` or `Decisions`. */
  readonly section: string;
  /** The rule's paraphrase (digest), situation (decisions) or sequence (edge cases), shortened. */
  readonly summary: string;
}

/** Every R- id of the digest (the rows of its rule tables), in document order. */
export function digestRules(markdown: string): SpecId[] {
  return tableRows(markdown, /^R-[A-Z]+-\d+$/, (cells) => cells[1] ?? "");
}

/** Every `#n` edge case of the digest (rows numbered `| 1 | … |`), in document order. */
export function digestEdgeCases(markdown: string): SpecId[] {
  return tableRows(markdown, /^\d+$/, (cells) => `${cells[1] ?? ""} → ${cells[2] ?? ""}`).map((e) => ({
    ...e,
    id: `#${e.id}`,
  }));
}

/** Every D- id of decisions.md, in document order. */
export function decisionIds(markdown: string): SpecId[] {
  return tableRows(markdown, /^D-[A-Z0-9]+(?:-[A-Z0-9]+)*$/, (cells) => cells[1] ?? "", "Decisions");
}

/** The project's index of rule ids, checked in (the spec documents are not part of the repository). */
export const SPEC_IDS_PATH = "test/traceability/spec-ids.json";

/** The checked-in index: where its ids come from, and the ids by kind, in document order. */
export interface SpecIndex {
  readonly source: Readonly<Record<string, string>>;
  readonly rules: readonly SpecId[];
  readonly edgeCases: readonly SpecId[];
  readonly decisions: readonly SpecId[];
}

/** The rule ids the matrix accounts for, from the checked-in index (`import-spec-ids.ts` refreshes it). */
export function readSpec(repoRoot: string): { rules: SpecId[]; edgeCases: SpecId[]; decisions: SpecId[] } {
  const index = JSON.parse(readFileSync(resolve(repoRoot, SPEC_IDS_PATH), "utf8")) as SpecIndex;
  return { rules: [...index.rules], edgeCases: [...index.edgeCases], decisions: [...index.decisions] };
}

/** The ids of the spec documents' markdown (the digest and decisions.md), as `import-spec-ids.ts` reads them. */
export function parseSpecDocuments(
  digest: string,
  decisions: string,
): { rules: SpecId[]; edgeCases: SpecId[]; decisions: SpecId[] } {
  return { rules: digestRules(digest), edgeCases: digestEdgeCases(digest), decisions: decisionIds(decisions) };
}

/** Rows of markdown tables whose first cell matches `idPattern`, under the nearest `##`/`###` heading. */
function tableRows(
  markdown: string,
  idPattern: RegExp,
  summaryOf: (cells: string[]) => string,
  fixedSection?: string,
): SpecId[] {
  const ids: SpecId[] = [];
  const seen = new Set<string>();
  let section = fixedSection ?? "";
  for (const line of markdown.split("\n")) {
    const heading = /^#{2,3} (.*)$/.exec(line);
    if (heading && fixedSection === undefined) section = sectionName(heading[1]!);
    if (!line.startsWith("|")) continue;
    const cells = splitRow(line);
    const id = cells[0] ?? "";
    if (!idPattern.test(id) || seen.has(id)) continue;
    seen.add(id);
    ids.push({ id, section, summary: shorten(summaryOf(cells)) });
  }
  return ids;
}

/** `1. Reasoning — https://…` → `§1 Reasoning`; `A. Span/message discipline (operator b)` → `A. Span/message discipline`. */
function sectionName(heading: string): string {
  const title = heading
    .split(" — ")[0]!
    .replace(/\s*\(.*\)\s*$/, "")
    .trim();
  const numbered = /^(\d+(?:\.\d+)?)\.? (.*)$/.exec(title);
  return numbered ? `§${numbered[1]} ${numbered[2]}` : title;
}

/** The cells of a table row; `\|` inside a cell is not a separator. */
function splitRow(line: string): string[] {
  const cells = line
    .replace(/^\|/, "")
    .replace(/\|\s*$/, "")
    .split(/(?<!\\)\|/);
  return cells.map((c) => c.trim());
}

function shorten(text: string): string {
  const plain = text.replace(/\*\*/g, "").replace(/\s+/g, " ").trim();
  return plain.length > 140 ? `${plain.slice(0, 139)}…` : plain;
}
