// The API report (issue 20): one `etc/<entry>.api.md` per entry point of package.json `exports`, made by
// api-extractor from the built declarations (dist/*.d.mts; run `npm run build` first). They are the reviewed
// public API: `npm run api:check` (a step of .ci/run) fails when the built API differs from the checked-in
// reports; `npm run api` rewrites them after an intended change (review the diff, add a CHANGELOG line).
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const local = process.argv.includes("--local");

/** Each entry point: its report's name and its declarations in dist/. */
const ENTRIES = [
  { report: "agui-reasoning", dts: "index" },
  { report: "agui-reasoning-stages", dts: "stages" },
  { report: "agui-reasoning-resilience", dts: "resilience" },
  { report: "agui-reasoning-testing", dts: "testing" },
];

mkdirSync(join(root, ".tmp/api"), { recursive: true });
let failed = 0;
for (const { report, dts } of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(root, "dist", `${dts}.d.mts`),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            strict: true,
            target: "es2022",
            module: "esnext",
            moduleResolution: "bundler",
            lib: ["es2022", "dom"],
            types: ["node"],
            skipLibCheck: true,
          },
        },
      },
      apiReport: {
        enabled: true,
        reportFolder: join(root, "etc"),
        reportTempFolder: join(root, ".tmp/api"),
        reportFileName: report,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        // The report holds the signatures only: api-extractor's findings (undocumented items, a type of
        // another entry point) name chunk files and lines of dist/, which change with any edit elsewhere.
        extractorMessageReporting: { default: { logLevel: "none", addToApiReportFile: false } },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, "package.json"),
  });
  const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false });
  if (!result.succeeded) {
    failed++;
    console.error(
      `etc/${report}.api.md: the API of ${dts} differs from the reviewed report` +
        (local ? "" : " — run `npm run build && npm run api`, review the diff, and record the change in CHANGELOG.md"),
    );
  } else if (result.apiReportChanged) console.log(`etc/${report}.api.md updated`);
}
process.exit(failed === 0 ? 0 : 1);
