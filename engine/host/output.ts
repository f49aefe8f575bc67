import type { OutputBatcher } from '../output-batcher.js';
import type { HostOutlet } from './outlet.js';

/**
 * `out`: the script's output, batched. A batch waits, but never longer than OUTPUT_FLUSH_MS when
 * the script prints again; nothing is written once the script has ended.
 */
export function writeOutput(text: string, output: OutputBatcher, outlet: HostOutlet, now: () => number): void {
  if (outlet.ended()) return;
  output.write(text);
  if (output.flushIfStale(now())) outlet.flush();
}
