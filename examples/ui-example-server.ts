import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { build as esbuild } from "esbuild";
import { mockAgentServer, type MockAgentServer } from "../src/testing";
import { uiAgent } from "./ui-agent";

/**
 * The server of the chat-UI examples (examples/assistant-ui, examples/copilotkit), on 127.0.0.1: the
 * example's page and its bundle beside the demo agent, no network beyond that.
 *
 *   GET  /         the page: an empty `#root` the React app renders into
 *   GET  /app.js   the app, bundled by the example's own esbuild (and /app.css when it has styles)
 *   POST /agent    the agent (examples/ui-agent.ts), one turn per request
 */
export interface ChatExample {
  /** The page: `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** Everything the agent received, byte for byte (the browser tests read the second turn's request here). */
  readonly server: MockAgentServer;
  close(): Promise<void>;
}

export interface ChatExampleBundle {
  readonly title: string;
  readonly script: string;
  /** The app's stylesheet, when it imports CSS (CopilotKit's). */
  readonly css?: string;
}

/**
 * The app (`entry`, an app.tsx) as one minified browser ES module, by the example's own esbuild
 * (`build` is passed in: each example bundles with the esbuild its own package.json pins).
 */
export async function bundleChatApp(build: typeof esbuild, entry: string, title: string): Promise<ChatExampleBundle> {
  const result = await build({
    entryPoints: [entry],
    outdir: join(dirname(entry), "dist"),
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    // CopilotKit's stylesheet pulls KaTeX's (math) fonts in; the examples render no math.
    loader: { ".woff": "empty", ".woff2": "empty", ".ttf": "empty" },
    write: false,
    logLevel: "warning",
  });
  const script = result.outputFiles.find((file) => file.path.endsWith(".js"));
  if (script === undefined) throw new Error("esbuild produced no app.js");
  const css = result.outputFiles.find((file) => file.path.endsWith(".css"));
  return { title, script: script.text, ...(css === undefined ? {} : { css: css.text }) };
}

/**
 * The example's command line: `npm start` serves it (`PORT=8080 npm start` picks the port, default a
 * free one); `npm run bundle` (`--bundle-only`) writes the bundle to dist/ and prints its size.
 */
export function runChatExampleCli(bundle: () => Promise<ChatExampleBundle>, folder: string): void {
  const done = process.argv.includes("--bundle-only")
    ? bundle().then((b) => {
        mkdirSync(join(folder, "dist"), { recursive: true });
        writeFileSync(join(folder, "dist/app.js"), b.script);
        if (b.css !== undefined) writeFileSync(join(folder, "dist/app.css"), b.css);
        process.stdout.write(`${b.title}: dist/app.js ${(Buffer.byteLength(b.script) / 1024).toFixed(0)} KiB\n`);
      })
    : bundle().then(async (b) => {
        const example = await startChatExample(b, Number(process.env.PORT ?? 0));
        process.stdout.write(`${b.title}: open ${example.url}  (Ctrl-C to stop)\n`);
        process.once("SIGINT", () => void example.close().then(() => process.exit(0)));
      });
  done.catch((error: unknown) => {
    process.stderr.write(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}

export async function startChatExample(bundle: ChatExampleBundle, port = 0): Promise<ChatExample> {
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${bundle.title}</title>
    <link rel="icon" href="data:," />
    ${bundle.css === undefined ? "" : '<link rel="stylesheet" href="/app.css" />'}
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/app.js"></script>
  </body>
</html>
`;
  const server = await mockAgentServer(uiAgent, {
    port,
    pages: {
      "/": { contentType: "text/html; charset=utf-8", body: () => html },
      "/app.js": { contentType: "text/javascript; charset=utf-8", body: () => bundle.script },
      ...(bundle.css === undefined
        ? {}
        : { "/app.css": { contentType: "text/css; charset=utf-8", body: () => bundle.css ?? "" } }),
    },
  });
  return { url: new URL("/", server.url).href, server, close: () => server.close() };
}
