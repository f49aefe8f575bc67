import type { CatalogMessage, ChildMessage, ChildOptions, StartMessage } from '../protocol/contract.js';
import { FrameDecoder, encodeFrame, splitFrameBody } from '../protocol/frames.js';
import type { PreludeSnapshot } from './prelude-vm.js';
import { ScriptRun } from './script-run.js';

/** A script that takes the paths every script takes: compile, calls, results, JSON, output, timers, errors. */
const WARM_UP_SCRIPT = `
const results = await Promise.all([1, 2, 3, 4].map((i) => tools.warm({ i, text: "x".repeat(i) })));
let total = 0;
for (let round = 0; round < 50; round++) {
  for (const r of results) total += JSON.stringify(r).length + JSON.parse(JSON.stringify({ round, r })).round;
}
console.log("warm", total, [1, "a", { b: [true, null] }]);
try { null.x; } catch (e) { String(e); }
await sleep(0);
return { total, texts: results.map((r) => r.content[0].text) };
`;

const WARM_UP_TOOLS = JSON.stringify([
  { name: 'warm', description: 'Warms the engine.', inputSchema: { type: 'object' }, declaration: '' },
]);

/** As a result's frame brings it: its JSON's UTF-8 bytes. */
const WARM_UP_RESULT = Buffer.from(JSON.stringify({ content: [{ type: 'text', text: 'warm' }] }));

/** Decodes a catalog and a start frame as the channel will: the frame codec's code is compiled before the script's arrive. */
function readStartFrames(): void {
  const catalog: CatalogMessage = { t: 'catalog', tools: WARM_UP_TOOLS };
  const start: StartMessage = { t: 'start', code: WARM_UP_SCRIPT, unlisted: [] };
  for (const frame of [encodeFrame(catalog), encodeFrame(start)]) {
    new FrameDecoder(frame.length).push(frame, (body) => JSON.parse(splitFrameBody(body).json) as unknown);
  }
}

/**
 * Runs the warm-up script on a throwaway VM in this child, so that the script's own VM, made
 * afterwards from the snapshot, is pristine while the code it runs is already compiled.
 */
export async function warmUp(
  wasm: WebAssembly.Module,
  snapshot: PreludeSnapshot | null,
  options: ChildOptions,
  rounds: number,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    readStartFrames();
    await new Promise<void>((resolve, reject) => {
      let run: ScriptRun | undefined;
      const sink = {
        send(message: ChildMessage): void {
          if (message.t === 'call') setImmediate(() => run?.deliver(message.id, 'ok', WARM_UP_RESULT));
          if (message.t === 'end' && message.status !== 'finished')
            reject(new Error(`warm-up ${message.status}: ${message.error}`));
        },
        flush(): void {},
      };
      const exit = () => {
        run?.dispose();
        resolve();
      };
      ScriptRun.create(wasm, snapshot, { channel: sink, options, exit, parentAlive: () => true }).then((created) => {
        run = created;
        created.prepareCatalog(WARM_UP_TOOLS);
        created.start(WARM_UP_SCRIPT, undefined, []);
      }, reject);
    });
  }
}
