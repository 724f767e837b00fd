/**
 * Where the real-browser test finds Chromium, how it launches it, and what happens without one.
 *
 * Debian's `chromium` package (`apt-get install -y chromium`) driven by `playwright-core`, which
 * downloads no browser. Without Chromium, `npm test` skips the browser test with one line saying how
 * to run it; with `AGUI_BROWSER_TEST=require` (set by .ci/run) a missing Chromium is a failure.
 */
import { existsSync } from "node:fs";

const CANDIDATES = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

/** `CHROMIUM_PATH`, else the first browser found at the usual Debian/Ubuntu paths. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && fromEnv !== "") return existsSync(fromEnv) ? fromEnv : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

/** CI sets `AGUI_BROWSER_TEST=require`: then the browser test must run. */
export const BROWSER_TEST_REQUIRED = process.env.AGUI_BROWSER_TEST === "require";

export const HOW_TO_RUN =
  "install Chromium (apt-get update && apt-get install -y chromium, or set CHROMIUM_PATH), then: npx jest test/browser";

/**
 * Flags that work in a container as root with no network: no sandbox (root), no GPU, and none of
 * Chromium's own background traffic. Playwright adds --headless and a fresh temporary profile
 * (--user-data-dir) itself.
 */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;
