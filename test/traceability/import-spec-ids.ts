/**
 * Refreshes the checked-in index of rule ids (test/traceability/spec-ids.json) from the spec
 * documents, wherever they are on this machine; the repository never reads them itself:
 *
 *   npx tsx test/traceability/import-spec-ids.ts <agui-1.0-digest.md> <decisions.md>
 *
 * New ids are added with the document's own text, shortened, as a first summary; an id already in the
 * index keeps the summary written there (rewrite it in the index, in our words). Ids gone from the
 * documents are dropped and printed. Then regenerate the matrix (generate.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { parseSpecDocuments, SPEC_IDS_PATH, type SpecId, type SpecIndex } from "./spec-ids";

const REPO_ROOT = resolve(__dirname, "../..");

if (require.main === module) {
  const [digestPath, decisionsPath] = process.argv.slice(2);
  if (digestPath === undefined || decisionsPath === undefined) {
    console.error("usage: npx tsx test/traceability/import-spec-ids.ts <agui-1.0-digest.md> <decisions.md>");
    process.exit(2);
  }
  const target = resolve(REPO_ROOT, SPEC_IDS_PATH);
  const previous = JSON.parse(readFileSync(target, "utf8")) as SpecIndex;
  const written = new Map(
    [...previous.rules, ...previous.edgeCases, ...previous.decisions].map((s) => [s.id, s.summary]),
  );
  const parsed = parseSpecDocuments(readFileSync(digestPath, "utf8"), readFileSync(decisionsPath, "utf8"));
  const keep = (ids: SpecId[]): SpecId[] => ids.map((s) => ({ ...s, summary: written.get(s.id) ?? s.summary }));
  const next: SpecIndex = {
    source: { ...previous.source, digest: basename(digestPath), decisions: basename(decisionsPath) },
    rules: keep(parsed.rules),
    edgeCases: keep(parsed.edgeCases),
    decisions: keep(parsed.decisions),
  };
  const now = new Set([...next.rules, ...next.edgeCases, ...next.decisions].map((s) => s.id));
  for (const id of written.keys()) if (!now.has(id)) console.log(`dropped ${id} (no longer in the documents)`);
  writeFileSync(target, `${JSON.stringify(next, null, 2)}\n`);
  console.log(
    `wrote ${target}: ${next.rules.length} rules, ${next.edgeCases.length} edge cases, ${next.decisions.length} decisions`,
  );
}
