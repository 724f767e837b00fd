import type { Config } from "jest";

// Type-checking is done once by `tsc --noEmit` (the first half of `npm test`); ts-jest only transpiles
// (isolatedModules: each file on its own, no type information), which keeps the suite fast on 2 cores.
// Every `*.test.ts` under marbles/ and test/ is a suite: add files, not entries here.
const config: Config = {
  testEnvironment: "node",
  roots: ["<rootDir>/marbles", "<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // The chat-UI libraries' browser tests need the examples' own installs: test/ui-libraries/jest.config.ts.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/ui-libraries/"],
  transform: {
    "^.+\\.ts$": [
      "ts-jest",
      { tsconfig: { module: "commonjs", moduleResolution: "node", isolatedModules: true, esModuleInterop: true } },
    ],
  },
  moduleFileExtensions: ["ts", "js", "json"],
  // Jest's default is one worker less than the cores: on a 2-core machine, one. The suites are
  // CPU-bound and the property suite is split into one file per property, so use every core.
  maxWorkers: "100%",
  // A worker whose heap has grown past this after a file is replaced before the next one. Why: by the
  // end of a run each worker held 600–650 MB (the property suites), and a process that large took
  // longer than jest's 500 ms to end after its exit began ("A worker process has failed to exit
  // gracefully" in every CI run, though neither worker held a timer, socket or child by then: a hook
  // in each worker logged its handles and its exit). At 512 MB: 4 replacements, no warning, the same time.
  workerIdleMemoryLimit: "512MB",
  testTimeout: 60_000,
};

export default config;
