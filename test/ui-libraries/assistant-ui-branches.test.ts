/**
 * D-KEEPER, R-REASON-17 where branches happen: assistant-ui's regenerate, then its branch picker back to
 * the first answer, in headless Chromium (examples/assistant-ui, docs/ui-libraries.md). The regenerate's
 * request has no first answer, so the middleware's conversation loses it; the branch picker then makes
 * assistant-ui send it again, its tool call's value dropped by assistant-ui's own copy. The follow-up's
 * request must still carry both values the agent issued, byte-identical: judged by what the agent received.
 *
 * Not part of `npm test`: `npm run test:ui-libraries` (see assistant-ui.test.ts).
 */
import { ISSUED } from "../../examples/demo-agent";
import { returnedValues } from "../../src/testing";
import { startExample } from "../../examples/assistant-ui/serve";
import type { RecordedRequest } from "../../src/testing";
import { ALL_BACK_IDENTICAL, useChatPage, type ChatPage, type ChatPageOptions } from "./chat-page";

/** assistant-ui's composer in the example; no streaming reasoning recorded (these tests do not look at it). */
const PAGE: ChatPageOptions = { input: "textarea.input", sendButton: "button.send", streamingReasoning: `return "";` };

/**
 * The first question, then assistant-ui's Regenerate on the turn's first assistant message (the reasoning
 * and the tool call; it shows the answer after the tool's result as a second one); the regenerate's request.
 */
async function askThenRegenerate({ page, send, example }: ChatPage): Promise<RecordedRequest> {
  await send("Train fares from Lyon to Marseille on Saturday, for four?");
  await page.getByText("The 10:40 TGV is €76 for all four").waitFor();
  const regenerated = example.server.requests.length;
  await page.locator(".message.assistant").first().locator("button.regenerate").click();
  const regenerate = await example.server.request(regenerated);
  await regenerate.end;
  await page.getByText("On second thought").waitFor();
  return regenerate;
}

/**
 * The branch picker (on the regenerated answer, 2 / 2) back to the first answer, and a follow-up: its request, as
 * the agent server received it, carries both of the first answer's values byte-identical; the page then shows
 * the answer and logged no error; a screenshot `name`.
 */
async function backThenFollowUp(chat: ChatPage, name: string): Promise<void> {
  const { page, send } = chat;
  const picker = page.locator(".message.assistant").first().locator(".branch-picker");
  expect(await picker.locator(".branch-number").innerText()).toBe("2 / 2");
  await picker.locator("button.branch-previous").click();
  await page.getByText("The 10:40 TGV is €76 for all four").waitFor();
  const request = await send("And if we book a week ahead?");
  expect(returnedValues(request, ISSUED)).toEqual(ALL_BACK_IDENTICAL);
  await page.getByText("With my earlier reasoning restored").waitFor();
  expect(chat.consoleErrors).toEqual([]);
  await chat.screenshot(name);
}

describe("assistant-ui with reasoningMiddleware: regenerate, then the branch picker back, in headless Chromium", () => {
  const open = useChatPage(startExample, PAGE);

  it("D-KEEPER R-REASON-17 the follow-up to the first answer, picked back after a regenerate, carries both of its values byte-identical", async () => {
    const { page } = open();
    // The regenerate's request has the user's message alone.
    const regenerate = await askThenRegenerate(open());
    expect((regenerate.json as { messages: Array<{ role: string }> }).messages.map((m) => m.role)).toEqual(["user"]);
    expect(await page.getByText("The 10:40 TGV is €76 for all four").count()).toBe(0);

    // The branch picker back to the first answer, then a follow-up to it.
    await backThenFollowUp(open(), "assistant-ui-branches");
  }, 60_000);
});

describe("assistant-ui with reasoningMiddleware: regenerate, reload, then the branch picker back, in headless Chromium", () => {
  const open = useChatPage(startExample, PAGE);

  it("D-KEEPER R-REASON-17 after a reload, the first answer picked back carries both of its values byte-identical: the departed messages were saved beside the history and loaded with it", async () => {
    const { page, reload } = open();
    await askThenRegenerate(open());
    // The run ended with the regenerated branch: the saved history has no first answer.
    expect(JSON.stringify(await open().savedHistory())).not.toContain("call-fares");

    // The page reopens on the branch it showed last; its picker still has the first answer.
    await reload();
    await page.getByText("On second thought").waitFor();
    await backThenFollowUp(open(), "assistant-ui-branches-reload");
  }, 90_000);
});
