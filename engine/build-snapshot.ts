/**
 * Build step: evaluates the prelude once and saves the VM as a snapshot, so a script's child
 * restores it instead of evaluating the prelude (npm run build runs this).
 */
import { writeFileSync } from 'node:fs';
import { QuickJS } from 'quickjs-wasi';
import { compileEngine } from './wasm.js';
import { HOST_FUNCTIONS } from '../common/seam.js';
import { PRELUDE_SNAPSHOT, PRELUDE_SNAPSHOT_META, evaluatePrelude, type HostImpl, type SnapshotMeta } from './prelude-vm.js';

const refuse = (): never => {
  throw new Error('no host function may run while the prelude snapshot is built');
};
const host = Object.fromEntries(HOST_FUNCTIONS.map((name) => [name, refuse])) as unknown as HostImpl;

const { vm, entry } = await evaluatePrelude(await compileEngine(), {}, host);
const meta: SnapshotMeta = { entryToken: vm.exportHandle(entry), quickjsWasi: vm.versions['quickjs-wasi'] ?? '' };
vm.runGC();
const bytes = QuickJS.serializeSnapshot(vm.snapshot());
writeFileSync(PRELUDE_SNAPSHOT, bytes);
writeFileSync(PRELUDE_SNAPSHOT_META, JSON.stringify(meta));
// stderr: stdout belongs to whatever runs the build (npm pack --json, say).
process.stderr.write(`prelude snapshot: ${bytes.length} bytes\n`);
