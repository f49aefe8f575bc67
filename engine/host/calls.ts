import { HOST_REFUSED } from '../../common/seam.js';
import { CALL_ARGS_MAX_BYTES, CALL_ARGS_MAX_VALUES, API_CALLS } from '../../protocol/contract.js';
import { countJsonValues } from '../../protocol/frames.js';
import type { HostOutlet } from './outlet.js';

/** '' when a call's arguments are within the caps, else what to tell the script. */
export function checkArgs(argsJson: string): string {
  const bytes = Buffer.byteLength(argsJson, 'utf8');
  if (bytes > CALL_ARGS_MAX_BYTES) {
    return `args are ${bytes} bytes of JSON, past the cap of ${CALL_ARGS_MAX_BYTES}`;
  }
  if (countJsonValues(argsJson, CALL_ARGS_MAX_VALUES) > CALL_ARGS_MAX_VALUES) {
    return `args hold more than ${CALL_ARGS_MAX_VALUES} values, past the cap`;
  }
  return '';
}

/** `send` and `sendApi`: a call's id once it is sent, or what the script is told when its arguments are past a cap. */
export class CallSender {
  private lastCallId = 0;

  constructor(private readonly outlet: HostOutlet) {}

  send(tool: string, argsJson: string): number | string {
    const problem = checkArgs(argsJson);
    return problem === '' ? this.sendCall(tool, argsJson, false) : problem;
  }

  sendApi(call: string, argsJson: string): number | string {
    if (!isApiCall(call)) return HOST_REFUSED;
    const problem = checkArgs(argsJson);
    return problem === '' ? this.sendCall(call, argsJson, true) : problem;
  }

  private sendCall(tool: string, argsJson: string, api: boolean): number {
    const id = ++this.lastCallId;
    if (this.outlet.ended()) return id;
    this.outlet.send({ t: 'call', id, tool, args: argsJson, ...(api ? { api: true as const } : {}) });
    // At once, not at the end of the turn: the script may go on computing for seconds in native
    // code that no interrupt check sees, and its call should be running meanwhile.
    this.outlet.flush();
    return id;
  }
}

function isApiCall(name: string): boolean {
  return (API_CALLS as readonly string[]).includes(name);
}
