/**
 * The web demo (`npm run demo:web`, examples/web/) in a real browser: headless Chromium loads the page,
 * which runs `HttpAgent` and `reasoningPipeline` in the browser against the local example agent for
 * three turns. Asserted as a person would look at it: the reasoning streamed into an open "Thinking…"
 * panel (the history paced to one per animation frame, D-PACE), then collapsed to a one-line summary (its title and "for N s", from the display view and the
 * durations) that expands on click; the answers; the tool call with
 * its arguments and result; a lock badge with the right byte length on exactly the two things that
 * hold an encrypted value, never the value itself; the THINKING_* upcast warning; the server's
 * byte-identical check; one console line per grouped warning and no console error; at 390 px wide,
 * nothing overflows. Saves screenshots to .tmp/web-demo.png and .tmp/web-demo-390.png.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ISSUED } from "../../examples/demo-agent";
import { startWebDemo, type WebDemo } from "../../examples/web/serve";
import { BROWSER_TEST_REQUIRED, CHROMIUM_FLAGS, HOW_TO_RUN, findChromium } from "./chromium";

const executablePath = findChromium();
const SCREENSHOT = resolve(__dirname, "../../.tmp/web-demo.png");
const SCREENSHOT_PHONE = resolve(__dirname, "../../.tmp/web-demo-390.png");

if (executablePath === undefined && !BROWSER_TEST_REQUIRED) {
  process.stderr.write(`browser test skipped: no Chromium found; ${HOW_TO_RUN}\n`);
}

/**
 * Runs in the page before its script: records the text of every reasoning panel seen open and
 * streaming ("Thinking…"), so the test knows the reasoning was shown before it collapsed however
 * fast the run went. (A string: this file is compiled without DOM types.)
 */
const RECORD_STREAMING_PANELS = `
  window.streamingPanelsSeen = [];
  new MutationObserver(() => {
    for (const panel of document.querySelectorAll("details.reasoning[open]")) {
      const summary = panel.querySelector("summary")?.textContent ?? "";
      const text = panel.querySelector(".reasoning-text")?.textContent ?? "";
      if (summary.startsWith("Thinking") && text !== "") window.streamingPanelsSeen.push(text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

describe("the web demo in headless Chromium (examples/web, npm run demo:web)", () => {
  const run = executablePath !== undefined || BROWSER_TEST_REQUIRED ? it : it.skip;
  let demo: WebDemo | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  run(
    "R-REASON-17 D-REDACT three turns in the browser: reasoning streams then collapses, lock badges, values back byte-identical, no console error",
    async () => {
      if (executablePath === undefined)
        throw new Error(`AGUI_BROWSER_TEST=require but no Chromium found: ${HOW_TO_RUN}`);
      demo = await startWebDemo();
      browser = await chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
      const page: Page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
      const consoleErrors: string[] = [];
      const consoleWarnings: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
        if (message.type() === "warning") consoleWarnings.push(message.text());
      });
      page.on("pageerror", (error) => consoleErrors.push(error.message));
      await page.addInitScript({ content: RECORD_STREAMING_PANELS });

      await page.goto(demo.url);
      await page.waitForSelector("body[data-state]", { timeout: 30_000 });
      expect(await page.getAttribute("body", "data-state")).toBe("done");

      // The reasoning was shown while it streamed ("Thinking…", open, text growing)…
      const seen = await page.evaluate<string[]>("window.streamingPanelsSeen");
      expect(seen.some((text) => text.startsWith("Family of four"))).toBe(true);
      expect(seen.some((text) => text.startsWith("Fares change daily"))).toBe(true);
      // …then collapsed to a one-line summary: both turns' panels closed, the text hidden.
      const panels = page.locator("details.reasoning");
      expect(await panels.count()).toBe(2);
      // Turn 1's legacy THINKING_START title (D-THINK-TITLE), then how long each took (D-DURATION).
      const summaries = [/^Reading the question for \d+\.\d s/, /^Thought for \d+\.\d s/];
      for (let i = 0; i < 2; i++) {
        expect(await panels.nth(i).getAttribute("open")).toBeNull();
        expect(await panels.nth(i).locator("summary").innerText()).toMatch(summaries[i]!);
        expect(await panels.nth(i).locator(".reasoning-text").isVisible()).toBe(false);
      }
      // Expandable: a click on the summary shows the full reasoning again.
      await panels.nth(1).locator("summary").click();
      expect(await panels.nth(1).locator(".reasoning-text").innerText()).toContain(
        "the family railcard applies to two adults and two children",
      );

      // The answers, the tool call with its arguments and its result.
      const conversation = await page.locator("#conversation").innerText();
      expect(conversation).toContain("Driving costs about €95");
      expect(conversation).toContain("The 10:40 TGV is €76 for all four with the family railcard");
      expect(conversation).toContain("With my earlier reasoning restored");
      const toolCall = page.locator('[data-tool-call-id="call-fares"]');
      expect(await toolCall.innerText()).toContain("→ lookup_fares");
      expect(await toolCall.locator(".tool-args").innerText()).toBe(
        '{"from":"Lyon","to":"Marseille","date":"Saturday","railcard":"family"}',
      );
      expect(await page.locator('[data-message-id="fares-result"]').innerText()).toContain(
        '← {"10:40":{"total":"€76"}}',
      );

      // A lock badge with the value's byte length on exactly the message and the tool call holding one.
      const [onMessage, onToolCall] = ISSUED;
      expect(await page.locator(".lock").count()).toBe(2);
      expect(await page.locator(`[data-message-id="${onMessage.entityId}"] .lock`).innerText()).toBe(
        `${Buffer.byteLength(onMessage.encryptedValue)} bytes`,
      );
      expect(await page.locator(`[data-tool-call-id="${onToolCall.entityId}"] .lock`).innerText()).toBe(
        `${Buffer.byteLength(onToolCall.encryptedValue)} bytes`,
      );
      // The values themselves are never on the page (not even in an attribute).
      const html = await page.content();
      for (const v of ISSUED) expect(html).not.toContain(v.encryptedValue.slice(0, 40));

      // Warnings as they arrived: turn 1's THINKING_* events were upcast.
      // One line per code, counted: turn 1's THINKING_* events were upcast, one warning per event.
      expect(await page.locator('#warnings [data-code="THINKING_UPCAST"]').innerText()).toMatch(
        /^turn 1 · THINKING_UPCAST ×\d+ — e\.g\. THINKING_START translated to REASONING_START/,
      );

      // The round trip, as the server saw turn 3's request.
      const check = await page.locator("#check").innerText();
      for (const v of ISSUED)
        expect(check).toContain(
          `✓ ${v.subtype} ${v.entityId}: ${Buffer.byteLength(v.encryptedValue)} bytes, byte-identical`,
        );
      expect(demo.server.requests).toHaveLength(3);

      // D-PACE, animationFrameScheduler: each turn's last history was out when its RUN_FINISHED arrived,
      // and at most one history per animation frame besides two per turn (the replayed one, the flush).
      const pacing = await page.evaluate<{
        turns: number;
        histories: number;
        frames: number;
        finishedAfterLast: number;
      }>("window.demoPacing");
      expect(pacing.turns).toBe(3);
      expect(pacing.finishedAfterLast).toBe(3);
      expect(pacing.histories).toBeLessThanOrEqual(pacing.frames + 2 * pacing.turns);

      // The console says what the page shows: one line per grouped warning, not one per warning.
      const warningLines = await page.locator("#warnings li").allInnerTexts();
      expect(warningLines.length).toBeGreaterThan(0);
      expect(consoleWarnings).toEqual(warningLines.map((line) => `[agui-reasoning web demo] ${line}`));

      // The lock badge's padlock is drawn (an SVG mask), not left to a glyph the fonts may lack.
      const padlock = await page.evaluate<string>(
        `getComputedStyle(document.querySelector(".lock"), "::before").maskImage`,
      );
      expect(padlock).toContain("image/svg+xml");

      expect(consoleErrors).toEqual([]);
      mkdirSync(resolve(SCREENSHOT, ".."), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      await panels.nth(1).locator("summary").click(); // both thoughts collapsed again

      // On a 390 px phone the collapsed thoughts' one-line previews stay inside their panels: nothing scrolls sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
      const overflow = await page.evaluate<number[]>(`[...document.querySelectorAll("details.reasoning")].map((panel) =>
        Math.max(...[...panel.querySelectorAll(".gist, .lock")].map((e) => e.getBoundingClientRect().right))
          - panel.getBoundingClientRect().right)`);
      expect(overflow).toHaveLength(2);
      for (const px of overflow) expect(px).toBeLessThanOrEqual(0);
      await page.screenshot({ path: SCREENSHOT_PHONE, fullPage: true });
    },
    60_000,
  );
});
