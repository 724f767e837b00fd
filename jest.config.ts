import type { Config } from "jest";

// Type-checking is done once by `tsc --noEmit` (the first half of `npm test`); jest only transpiles,
// with esbuild (test/support/esbuild-transform.cjs), which keeps the suite fast on a 2-core machine.
// Every `*.test.ts` under marbles/ and test/ is a suite: add files, not entries here.
const config: Config = {
  testEnvironment: "node",
  roots: ["<rootDir>/marbles", "<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": "<rootDir>/test/support/esbuild-transform.cjs",
  },
  moduleFileExtensions: ["ts", "js", "json"],
  testTimeout: 60_000,
};

export default config;
