// The API report (issue 20): one `etc/<entry>.api.md` per entry point of package.json `exports`, made by
// api-extractor from the declarations of the sources (emitted by tsc into .tmp/api/, no build needed). They are
// the reviewed public API: `npm run api:check` fails when the API differs from the checked-in reports (and
// test/api/api-report.test.ts runs it in `npm test`, so CI and every landing check it); `npm run api` rewrites
// them after an intended change (review the diff, add a CHANGELOG line).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const local = process.argv.includes("--local");

/** Each entry point: its report's name and its source. */
const ENTRIES = [
  { report: "agui-reasoning", src: "src/index.ts" },
  { report: "agui-reasoning-stages", src: "src/stages.ts" },
  { report: "agui-reasoning-resilience", src: "src/resilience.ts" },
  { report: "agui-reasoning-testing", src: "src/testing/index.ts" },
  { report: "agui-reasoning-storage", src: "src/storage/index.ts" },
];

// The entries' declarations, with the project's compiler options.
const work = join(root, ".tmp/api");
mkdirSync(work, { recursive: true });
writeFileSync(
  join(work, "tsconfig.json"),
  JSON.stringify({
    extends: "../../tsconfig.json",
    compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: "dts", rootDir: "../.." },
    files: ENTRIES.map(({ src }) => join(root, src)),
    include: [],
  }),
);
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(work, "tsconfig.json")], {
  stdio: "inherit",
});

let failed = 0;
for (const { report, src } of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(work, "dts", src.replace(/\.ts$/, ".d.ts")),
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
        reportTempFolder: join(work, "reports"),
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
      `etc/${report}.api.md: the API of ${src} differs from the reviewed report` +
        (local ? "" : " — run `npm run api`, review the diff of etc/, and record the change in CHANGELOG.md"),
    );
  } else if (result.apiReportChanged) console.log(`etc/${report}.api.md updated`);
}
process.exit(failed === 0 ? 0 : 1);
