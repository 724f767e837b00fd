import type { Config } from "jest";
import base from "../../jest.config";

// The chat-UI libraries' browser tests (docs/ui-libraries.md): not part of `npm test`, because they need
// the examples' own installs (`npm ci` in examples/assistant-ui and examples/copilotkit) and the
// package's build (`"agui-reasoning": "file:../.."`). `npm run test:ui-libraries`; `.ci/run` runs them.
const config: Config = {
  ...base,
  rootDir: "../..",
  roots: ["<rootDir>/test/ui-libraries"],
  testPathIgnorePatterns: ["/node_modules/"],
  // One browser at a time: each test file starts its own server and Chromium.
  maxWorkers: 1,
};

export default config;
