/**
 * D-PACE with `animationFrameScheduler` in a real browser (headless Chromium): the page
 * (examples/web/paced-page.ts) streams a reasoning message, 40 deltas per animation frame, through a
 * pipeline paced at one history per frame (`historyPace: 0`), and records every publication's frame.
 */
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { bundlePage } from "../../examples/web/serve";
import { BROWSER_TEST_REQUIRED, CHROMIUM_FLAGS, HOW_TO_RUN, findChromium } from "./chromium";

const executablePath = findChromium();

interface PacedResult {
  readonly published: { frame: number; length: number }[];
  readonly atFinish: number;
  readonly total: number;
  readonly unpacedCount: number;
  readonly sameLast: boolean;
  readonly incomplete: number;
  readonly error?: string;
}

describe("D-PACE: a paced history on animationFrameScheduler in headless Chromium", () => {
  const run = executablePath !== undefined || BROWSER_TEST_REQUIRED ? it : it.skip;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  run(
    "D-PACE: at most one history per animation frame (besides the initial one and the flush before RUN_FINISHED), the last one before RUN_FINISHED, equal to the unpaced one",
    async () => {
      if (executablePath === undefined)
        throw new Error(`AGUI_BROWSER_TEST=require but no Chromium found: ${HOW_TO_RUN}`);
      const { script } = await bundlePage(join(__dirname, "../../examples/web/paced-page.ts"));
      browser = await chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.setContent("<!doctype html><body></body>");
      await page.addScriptTag({ content: script, type: "module" });
      await page.waitForSelector("body[data-state]", { state: "attached", timeout: 30_000 });
      const result = await page.evaluate<PacedResult>("window.pacedResult");
      expect(errors).toEqual([]);
      expect(result.error).toBeUndefined();

      // The initial history (replayed on subscribe) and the flush before RUN_FINISHED aside, no two
      // publications in one frame — unpaced, each frame would bring 40.
      const { published } = result;
      const perFrame = new Map<number, number>();
      for (const p of published.slice(1, -1)) perFrame.set(p.frame, (perFrame.get(p.frame) ?? 0) + 1);
      expect(Math.max(...perFrame.values())).toBe(1);
      expect(published.length).toBeLessThan(result.unpacedCount / 4);
      // The text grew while it streamed (trailing edges in later frames), not only at the end.
      expect(published.filter((p) => p.length > 0 && p.length < result.total).length).toBeGreaterThan(2);
      // RUN_FINISHED reached events$ after the whole text was published; the last history is the unpaced one.
      expect(result.atFinish).toBe(result.total);
      expect(published.at(-1)!.length).toBe(result.total);
      expect(result.sameLast).toBe(true);
      expect(result.incomplete).toBe(0);
    },
    60_000,
  );
});
