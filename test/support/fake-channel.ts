import { PROTOCOL_VERSION, type ChildMessage, type ParentMessage, type ToolEntry } from '../../protocol/contract.js';
import { encodeFrame } from '../../protocol/frames.js';
import type { ChannelEvents, ScriptChannel } from '../../src/script-host/channel.js';
import { ChildFrameReader } from '../../src/script-host/child-frames.js';
import { Script, type ScriptOptions } from '../../src/script-host/script.js';
import { TEST_LIMITS, apisOf, toolEntries, type TestApis } from './scripts.js';

/** A frame the parent sent, its payload as text. */
export interface SentFrame {
  readonly message: ParentMessage;
  readonly payload?: string;
}

/**
 * A script's child in memory: what the parent sends is recorded, and what the test has the child
 * say goes through the same frame reading and checks as a real child's bytes (child-frames.ts).
 * A kill, like a process's, is followed by the exit a moment later.
 */
export class FakeChannel implements ScriptChannel {
  readonly ready: Promise<void>;
  readonly sent: SentFrame[] = [];
  stopFiles = 0;
  kills = 0;
  exited = false;
  private events: ChannelEvents | undefined;
  private readonly reader: ChildFrameReader;
  private exitDescription = ' (exit code 0)';

  constructor() {
    let settle: (error?: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
    this.reader = new ChildFrameReader({
      ready: () => settle(),
      message: (message) => this.events?.message(message),
      breach: (reason) => {
        this.kill();
        settle(new Error(`broke the protocol before it was ready: ${reason}`));
        this.events?.breach(reason);
      },
    });
    this.receiveBytes(encodeFrame({ t: 'ready', v: PROTOCOL_VERSION, prelude: 'snapshot' }));
  }

  /** The child says `message` (and a payload after it: an ending's value). */
  receive(message: ChildMessage | Record<string, unknown>, payload?: string): void {
    this.receiveBytes(encodeFrame(message, payload));
  }

  receiveBytes(bytes: Uint8Array): void {
    if (!this.exited) this.reader.push(bytes);
  }

  /** The child exits, as `description` says (describeExit). */
  exit(description = this.exitDescription): void {
    if (this.exited) return;
    this.exited = true;
    this.exitDescription = description;
    this.events?.exit();
  }

  /** The frames sent of one kind. */
  sentOf<T extends ParentMessage['t']>(t: T): Array<{ message: Extract<ParentMessage, { t: T }>; payload?: string }> {
    return this.sent.filter((frame) => frame.message.t === t) as Array<{
      message: Extract<ParentMessage, { t: T }>;
      payload?: string;
    }>;
  }

  listen(events: ChannelEvents): void {
    this.events = events;
  }

  start(code: string, toolsJson: string, unlisted: readonly string[]): void {
    this.send({ t: 'start', code, tools: toolsJson, unlisted });
  }

  send(message: ParentMessage, payload?: Uint8Array | string, written?: () => void): void {
    if (this.exited) return;
    this.sent.push({ message, ...(payload !== undefined ? { payload: Buffer.from(payload).toString('utf8') } : {}) });
    if (written) queueMicrotask(written);
  }

  createStopFile(): void {
    this.stopFiles++;
  }

  kill(): void {
    this.kills++;
    if (!this.exited) queueMicrotask(() => this.exit(' (killed by SIGKILL)'));
  }

  describeExit(): string {
    return this.exitDescription;
  }
}

/** A Script over a FakeChannel, with the test limits, the echo tool and the options given. */
export function fakeScript(
  options: Partial<Omit<ScriptOptions, 'limits' | 'apis'>> & TestApis & { limits?: Partial<ScriptOptions['limits']> } = {},
): {
  readonly script: Script;
  readonly child: FakeChannel;
} {
  const { callTool: _tool, callResource: _resource, callState: _state, callSkills: _skills, ...rest } = options;
  const child = new FakeChannel();
  const tools: readonly ToolEntry[] = options.tools ?? toolEntries('echo');
  const script = new Script(child, {
    id: 'test',
    code: 'the script',
    ...rest,
    apis: apisOf(options),
    tools,
    limits: { ...TEST_LIMITS, ...options.limits },
  });
  return { script, child };
}
