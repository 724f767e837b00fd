import type { Config } from "jest";

// Type-checking is done once by `tsc --noEmit` (npm run typecheck, run by .ci/run);
// ts-jest only transpiles, which keeps the suite fast on a 2-core machine.
const config: Config = {
  testEnvironment: "node",
  roots: ["<rootDir>/marbles", "<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: { module: "commonjs", moduleResolution: "node", isolatedModules: true, esModuleInterop: true } }],
  },
  moduleFileExtensions: ["ts", "js", "json"],
  testTimeout: 60_000,
};

export default config;
