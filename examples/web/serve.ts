/**
 * `npm run demo:web`: the web demo. Bundles examples/web/page.ts for the browser (esbuild, in memory)
 * and serves it from the example agent server `npm start` uses, on 127.0.0.1, beside the agent:
 *
 *   GET  /         the page (index.html)
 *   GET  /page.js  the page script: HttpAgent + reasoningPipeline, bundled (and its source map)
 *   POST /agent    the demo agent (examples/demo-agent.ts), one turn per request
 *   GET  /check    the server's check of the latest request: each issued value back, byte for byte?
 *
 * No network beyond 127.0.0.1. `PORT=8080 npm run demo:web` picks the port (default: a free one).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { mockAgentServer, returnedValues, type MockAgentServer } from "../../src/testing";
import { ISSUED, demoAgent } from "../demo-agent";

/** A page script (default: the web demo's) as one browser ES module (every dependency bundled, nothing from Node), and its source map. */
export async function bundlePage(entry = join(__dirname, "page.ts")): Promise<{ script: string; sourceMap: string }> {
  const result = await build({
    entryPoints: [entry],
    // Not written: the names only set the script's `//# sourceMappingURL=page.js.map`.
    outfile: join(__dirname, "page.js"),
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    sourcemap: "linked",
    write: false,
    logLevel: "silent",
  });
  const output = (suffix: string): string => result.outputFiles.find((file) => file.path.endsWith(suffix))!.text;
  return { script: output(".js"), sourceMap: output(".js.map") };
}

export interface WebDemo {
  /** The page: `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly server: MockAgentServer;
  close(): Promise<void>;
}

/** Bundles the page and starts the server. */
export async function startWebDemo(port = 0): Promise<WebDemo> {
  const { script, sourceMap } = await bundlePage();
  const html = readFileSync(join(__dirname, "index.html"), "utf8");
  const server = await mockAgentServer(demoAgent, {
    port,
    pages: {
      "/": { contentType: "text/html; charset=utf-8", body: () => html },
      "/page.js": { contentType: "text/javascript; charset=utf-8", body: () => script },
      "/page.js.map": { contentType: "application/json", body: () => sourceMap },
      "/check": {
        contentType: "application/json",
        body: (requests) => JSON.stringify(returnedValues(requests[requests.length - 1], ISSUED)),
      },
    },
  });
  return { url: new URL("/", server.url).href, server, close: () => server.close() };
}

if (require.main === module) {
  startWebDemo(Number(process.env.PORT ?? 0)).then(
    (demo) => {
      process.stdout.write(`agui-reasoning web demo: open ${demo.url}  (Ctrl-C to stop)\n`);
      process.once("SIGINT", () => void demo.close().then(() => process.exit(0)));
    },
    (error: unknown) => {
      process.stderr.write(`web demo failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
