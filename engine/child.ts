import { readdirSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { CHILD_DIR_PREFIX, PROTOCOL_VERSION, type ChildOptions, type ParentMessage } from '../protocol/contract.js';
import { ParentChannel } from './channel.js';
import { collectGarbage } from './collect-garbage.js';
import { exitNow } from './exit-now.js';
import { readPreludeSnapshot } from './prelude-vm.js';
import { ScriptRun } from './script-run.js';
import { warmUp } from './warm-up.js';

/** 2: warm-up runs in a pooled child; a second run is what takes its first call to the warm figure (bench/RESULTS.md). */
const WARM_UP_ROUNDS = 2;

/**
 * 1 s: a child reset for its owner's next script that is still idle this long after collects its
 * garbage (the last VM's instance, and its memory if the script grew it: a memory of the
 * snapshot's size goes to the next VM), so an idle child holds one VM's memory.
 */
const IDLE_COLLECT_MS = 1_000;

export async function runChild(wasmCompiling: Promise<WebAssembly.Module>): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;
  const parentPid = process.ppid;
  const parentAlive = (): boolean => {
    try {
      process.kill(parentPid, 0);
      return true;
    } catch {
      return false;
    }
  };
  /** The script has ended and said so: the child waits for the parent's `exit`. */
  let ended = false;
  /** The child's cwd is the private directory the parent made for it (a test's child may run elsewhere). */
  const inOwnDirectory = (): boolean => basename(process.cwd()).startsWith(CHILD_DIR_PREFIX);
  const parentGone = (): never => {
    if (inOwnDirectory()) {
      // No parent is left to remove the directory it made for us.
      rmSync(process.cwd(), { recursive: true, force: true });
    }
    exitNow();
  };
  const exit = (reason: 'ended' | 'parent-gone'): void => {
    if (reason === 'ended') ended = true;
    else parentGone();
  };

  let run: ScriptRun | null = null;
  /** The last catalog given (ahead, or with a start): a reset makes it ready in the fresh VM, as the parent expects. */
  let catalog: string | undefined;
  /** Messages that came while the VM was being made: read once it is. */
  const early: Array<[ParentMessage, Buffer]> = [];
  const onMessage = (message: ParentMessage, payload: Buffer): void => {
    // After the ending only the parent's word counts: to go (it removes the directory), or to take another script.
    if (ended) {
      if (message.t === 'exit' || (message.t === 'reset' && !run!.reusable)) exitNow();
      if (message.t === 'reset') void reset();
      return;
    }
    if (run === null) {
      early.push([message, payload]);
      return;
    }
    switch (message.t) {
      case 'catalog':
        catalog = message.tools;
        run.prepareCatalog(message.tools);
        break;
      case 'start':
        started++;
        if (message.tools !== undefined) catalog = message.tools;
        run.start(message.code, message.tools, message.unlisted);
        break;
      case 'result':
        run.deliver(message.id, message.kind, message.kind === 'ok' ? payload : (message.message ?? ''));
        break;
      case 'release':
        run.deliver(message.id, 'release', '');
        break;
      case 'stop':
        run.stop();
        break;
    }
  };

  const channel = new ParentChannel(onMessage, parentGone);
  const snapshot = readPreludeSnapshot();
  if (snapshot === null) {
    process.stderr.write(
      'codemode engine: the prelude snapshot is missing (run "npm run build"); evaluating the prelude instead\n',
    );
  }
  const wasm = await wasmCompiling;

  /** A fresh VM from the snapshot (a new instance of the compiled module, with new memory), then `ready`. */
  const makeRun = async (): Promise<void> => {
    const made = await ScriptRun.create(wasm, snapshot, { channel, options, exit, parentAlive });
    if (catalog !== undefined) made.prepareCatalog(catalog);
    run = made;
    channel.send({ t: 'ready', v: PROTOCOL_VERSION, prelude: snapshot ? 'snapshot' : 'evaluated' });
    channel.flush();
    for (const [message, payload] of early.splice(0)) onMessage(message, payload);
  };

  /** Scripts started: an idle collection looks whether another began meanwhile. */
  let started = 0;
  /**
   * Drops everything of the script that ended: its VM, whose memory is overwritten with zeros at
   * once (the next VM is made in it, engine/snapshot-restore.ts; one the script grew is V8's to free,
   * at its next collection or IDLE_COLLECT_MS later if the child is still idle), its run's host
   * state, and what is in its directory (the stop file); then makes the next script's VM.
   */
  const reset = async (): Promise<void> => {
    run!.dispose();
    run = null;
    ended = false;
    if (inOwnDirectory()) for (const entry of readdirSync('.')) rmSync(entry, { recursive: true, force: true });
    await makeRun();
    const startedBefore = started;
    // A collection takes milliseconds: not in a script's way, only when it's idle.
    setTimeout(() => {
      if (started === startedBefore) collectGarbage();
    }, IDLE_COLLECT_MS).unref();
  };

  if (options.warm) {
    await warmUp(wasm, snapshot, options, WARM_UP_ROUNDS);
    collectGarbage();
  }
  await makeRun();
}
