import { ScriptChild } from '../script-host/script-child.js';
import { claimEarlyScriptProcess, scriptProcessOptions } from '../script-host/script-process.js';
import type { Log } from '../support/log.js';
import type { Settings } from '../config/settings.js';
import { ChildPool } from './child-pool.js';
import type { Clock } from './clock.js';

/** The server's pool of script processes (ChildPool), each a ScriptChild spawned with the server's settings. */
export class ChildSupply extends ChildPool<ScriptChild> {
  /** As ChildPool's: `ready` the server's start, `clock` the policies' time. */
  constructor(settings: Settings, log?: Log, ready?: Promise<unknown>, clock?: Clock) {
    super(settings, (warm, onEnding) => startScriptChild(settings, warm, onEnding), log, ready, clock);
  }
}

function startScriptChild(settings: Settings, warm: boolean, onEnding: (child: ScriptChild) => void): ScriptChild {
  const options = scriptProcessOptions(settings, warm);
  // A pooled child may have been spawned already, when the server started (src/commands/serve-stdio/early-start.ts).
  return new ScriptChild({ ...options, onEnding }, warm ? claimEarlyScriptProcess(options) : undefined);
}
