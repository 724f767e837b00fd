/**
 * What the two chat-UI browser tests (assistant-ui.test.ts, copilotkit.test.ts) share: the example's
 * server and a headless Chromium page on it, a turn sent through the library's own composer, the
 * console, and a recorder of the reasoning text seen while it streamed.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { RecordedRequest } from "../../src/testing";
import { ISSUED } from "../../examples/demo-agent";
import type { ChatExample } from "../../examples/ui-example-server";
import { parseHistory, type ReasoningHistory } from "../../src";
import { CHROMIUM_FLAGS, HOW_TO_RUN, findChromium } from "../browser/chromium";

/** Where the screenshots go (git-ignored): .tmp/ui-libraries/<name>.png */
export const SCREENSHOTS = resolve(__dirname, "../../.tmp/ui-libraries");

export interface ChatPage {
  readonly example: ChatExample;
  readonly page: Page;
  /** Console errors and page errors, in order. */
  readonly consoleErrors: string[];
  /** Types `text` into the composer, clicks send, and resolves with the request once its response is over. */
  readonly send: (text: string) => Promise<RecordedRequest>;
  /** Reloads the page (a user reopening it): the app restores the thread it saved. */
  readonly reload: () => Promise<void>;
  /** The reasoning texts the page showed while they streamed (see `recordStreaming`). */
  readonly streamingSeen: () => Promise<string[]>;
  /** The history the app saved when its last run ended (`serializeHistory`, in localStorage), parsed. */
  readonly savedHistory: () => Promise<ReasoningHistory | undefined>;
  readonly screenshot: (name: string) => Promise<string>;
  readonly close: () => Promise<void>;
}

export interface ChatPageOptions {
  /** The composer's text input. */
  readonly input: string;
  /** The composer's send button (clicked once enabled: a library may hold it while it loads a thread). */
  readonly sendButton: string;
  /**
   * A function body run on every DOM change, returning the reasoning text shown as streaming right
   * now (or "" for none). A string: this file is compiled without DOM types.
   */
  readonly streamingReasoning: string;
}

export async function openChatPage(start: () => Promise<ChatExample>, options: ChatPageOptions): Promise<ChatPage> {
  const executablePath = findChromium();
  if (executablePath === undefined) throw new Error(`no Chromium found: ${HOW_TO_RUN}`);
  const example = await start();
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
    const page = await browser.newPage({ viewport: { width: 900, height: 1100 } });
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
    await page.addInitScript({
      content: `
        window.streamingSeen = [];
        const current = () => { ${options.streamingReasoning} };
        new MutationObserver(() => {
          const text = current();
          if (text) window.streamingSeen.push(text);
        }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
      `,
    });
    await page.goto(example.url);
    await page.waitForSelector(options.input, { timeout: 30_000 });
    const opened = browser;
    return {
      example,
      page,
      consoleErrors,
      send: async (text) => {
        const index = example.server.requests.length;
        const input = page.locator(options.input).first();
        await input.fill(text);
        await page.locator(options.sendButton).click();
        const request = await example.server.request(index);
        await request.end;
        return request;
      },
      reload: async () => {
        await page.reload();
        await page.waitForSelector(options.input, { timeout: 30_000 });
      },
      streamingSeen: () => page.evaluate<string[]>("window.streamingSeen"),
      savedHistory: async () => {
        const saved = await page.evaluate<string | null>(`localStorage.getItem("agui-reasoning-example:history")`);
        return saved === null ? undefined : parseHistory(saved);
      },
      screenshot: async (name) => {
        mkdirSync(SCREENSHOTS, { recursive: true });
        const path = resolve(SCREENSHOTS, `${name}.png`);
        await page.screenshot({ path, fullPage: true });
        return path;
      },
      close: async () => {
        await opened.close();
        await example.close();
      },
    };
  } catch (error) {
    await browser?.close();
    await example.close();
    throw error;
  }
}

/**
 * The page for a test file: opened before its tests, closed after them. The function returned gives it
 * to a test (a failure to open fails the first test that asks).
 */
export function useChatPage(start: () => Promise<ChatExample>, options: ChatPageOptions): () => ChatPage {
  let chat: ChatPage | undefined;
  beforeAll(async () => {
    chat = await openChatPage(start, options);
  }, 60_000);
  afterAll(async () => {
    await chat?.close();
  });
  return () => {
    if (chat === undefined) throw new Error("the page did not open (see the first test)");
    return chat;
  };
}

/** `returnedValues(request, ISSUED)` when every issued value came back byte-identical. */
export const ALL_BACK_IDENTICAL = ISSUED.map((v) => ({
  subtype: v.subtype,
  entityId: v.entityId,
  bytes: Buffer.byteLength(v.encryptedValue),
  identical: true,
}));

/**
 * Where each issued value is in a saved history, and who it is recorded as issued by: what a restored
 * thread continues from (`initialHistory`). `undefined` where the value is missing.
 */
export function valuesIn(history: ReasoningHistory | undefined): Array<{ value?: string; issuer?: string }> {
  const messages = history?.messages ?? [];
  return ISSUED.map((v) => {
    const holder =
      v.subtype === "message"
        ? messages.find((m) => m.id === v.entityId)
        : messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.id === v.entityId);
    const value = (holder as { encryptedValue?: string } | undefined)?.encryptedValue;
    const issuer = history?.issuers.find((r) => r.subtype === v.subtype && r.entityId === v.entityId)?.issuer;
    return { ...(value === undefined ? {} : { value }), ...(issuer === undefined ? {} : { issuer }) };
  });
}
