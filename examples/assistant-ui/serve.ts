/**
 * `npm start` here: bundles app.tsx with this folder's esbuild (React, assistant-ui, and agui-reasoning from
 * the repository's build, `"agui-reasoning": "file:../.."`) and serves it beside the demo agent on
 * 127.0.0.1 (examples/ui-example-server.ts). `npm run bundle` only bundles, into dist/.
 */
import { join } from "node:path";
import { build } from "esbuild";
import { bundleChatApp, runChatExampleCli, startChatExample, type ChatExample } from "../ui-example-server";

export const bundleApp = () => bundleChatApp(build, join(__dirname, "app.tsx"), "agui-reasoning · assistant-ui");

/** The example's server, for the browser test (test/ui-libraries/). */
export async function startExample(): Promise<ChatExample> {
  return startChatExample(await bundleApp());
}

if (require.main === module) runChatExampleCli(bundleApp, __dirname);
