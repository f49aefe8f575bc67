/** A config with one upstream, the recorder fixture, and the server's script children as /proc shows them. */
import { join } from 'node:path';
import { ENGINE_MAIN } from '../../src/script-host/engine-path.js';
import { fixturePath, nodeEntry, writeConfig } from './mcp-client.js';
import { childPidsOf, commandLineOf } from './processes.js';
import { makeTempDir } from './temp-dirs.js';

/** A config whose one upstream, `recorder`, writes each start and call to `recordFile` (read it with readRecord). */
export function recorderConfig(label: string): { config: string; recordFile: string } {
  const recordFile = join(makeTempDir(label), 'record.jsonl');
  const config = writeConfig({
    recorder: nodeEntry(fixturePath('upstreams/recorder.mjs'), [], { env: { RECORD_FILE: recordFile } }),
  });
  return { config, recordFile };
}

/** The server's script children (running the engine), from /proc. */
export function scriptChildrenOf(pid: number): number[] {
  return childPidsOf(pid).filter((child) => commandLineOf(child)?.includes(ENGINE_MAIN) === true);
}
