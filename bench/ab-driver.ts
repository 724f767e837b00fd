import type { reasoningPipeline as Pipeline } from "../src";
import { facade, floor as floorOf, median } from "./paced-cells";
import { conversationEvents, type ConversationShape } from "./streams";

/**
 * The measuring half of `bench/ab.ts` (run by it, bundled): `node --expose-gc ab-driver.js <shape>
 * <runs> <rounds> <name>=<bundle> <name>=<bundle>`. Every round runs the floor and each bundle's
 * paced facade once over the same events, the bundles' order swapped every other round.
 */

const [shape, runsArg, roundsArg, ...named] = process.argv.slice(2);
const events = [...conversationEvents(shape as ConversationShape, Number(runsArg))];
const rounds = Number(roundsArg);
const gc = (globalThis as { gc?: () => void }).gc!;

const cells = named.map((arg) => {
  const at = arg.lastIndexOf("=");
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle chosen at run time
  const { reasoningPipeline } = require(arg.slice(at + 1)) as { reasoningPipeline: typeof Pipeline };
  return { name: arg.slice(0, at), run: () => facade(reasoningPipeline, events, 16), times: [] as number[] };
});
const floor = { name: "floor", run: () => floorOf(events), times: [] as number[] };

async function main(): Promise<void> {
  for (const cell of [floor, ...cells]) for (let i = 0; i < 2; i++) await cell.run(); // warm-up
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? cells : [...cells].reverse();
    for (const cell of [floor, ...order]) {
      gc();
      const t0 = performance.now();
      await cell.run();
      cell.times.push(performance.now() - t0);
    }
  }
  const base = median(floor.times);
  console.log(`${shape}, ${runsArg} runs (${events.length} events), paced facade, median of ${rounds}:`);
  console.log(`  floor: ${base.toFixed(1)} ms`);
  for (const cell of cells) {
    const m = median(cell.times);
    console.log(`  ${cell.name}: ${m.toFixed(1)} ms (${(m / base).toFixed(2)}× floor)`);
  }
  const [a, b] = cells.map((cell) => median(cell.times));
  if (a !== undefined && b !== undefined) console.log(`  ${cells[0]!.name} ÷ ${cells[1]!.name}: ${(a / b).toFixed(3)}`);
}

void main();
