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
  testTimeout: 60_000,
};

export default config;
