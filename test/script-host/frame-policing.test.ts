/**
 * A child that breaks the protocol, in memory: each frame goes through the same reading and
 * checks as a real child's bytes (child-frames.ts, check-message.ts) and the script's own
 * (call-policy.ts, script.ts). breaches.test.ts keeps the ones that need a real process.
 */
import { describe, expect, it } from 'vitest';
import { BREACH, PROTOCOL_VERSION, type Breach } from '../../protocol/contract.js';
import { encodeFrame } from '../../protocol/frames.js';
import { ChildFrameReader } from '../../src/script-host/child-frames.js';
import type { ToolCaller } from '../../src/script-host/apis.js';
import { FakeChannel, fakeScript } from '../support/fake-channel.js';
import { toolEntries } from '../support/scripts.js';

const hangingTool: ToolCaller = (_name, _args, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

function header(length: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(length, 0);
  return bytes;
}

const call = (child: FakeChannel, id: number, tool = 'hang', args = '{}') => child.receive({ t: 'call', id, tool, args });

/** Each way a child can break the protocol, and the breach DESIGN.md names for it. */
const MODES: Array<[mode: string, breach: Breach, send: (child: FakeChannel) => void]> = [
  ['undecodable', 'FRAME_UNDECODABLE', (child) => child.receiveBytes(Buffer.concat([header(8), Buffer.from('not json')]))],
  ['a JSON array', 'FRAME_UNDECODABLE', (child) => child.receiveBytes(Buffer.concat([header(2), Buffer.from('[]')]))],
  ['an unknown kind', 'FRAME_UNDECODABLE', (child) => child.receive({ t: 'hello' })],
  [
    'frame-too-large',
    'FRAME_TOO_LARGE',
    (child) => child.receiveBytes(Buffer.concat([header(25 * 1024 * 1024 + 1), Buffer.from('{"t":"out"')])),
  ],
  [
    'too-many-values',
    'FRAME_TOO_MANY_VALUES',
    (child) => child.receive({ t: 'out', text: 'x', extra: Array.from({ length: 40 }, (_, i) => i) }),
  ],
  ['tool-not-given', 'TOOL_NOT_GIVEN', (child) => call(child, 1, 'not-a-tool')],
  [
    'resource-call-unknown',
    'API_CALL_UNKNOWN',
    (child) => child.receive({ t: 'call', id: 1, tool: 'resources.delete', args: '{}', api: true }),
  ],
  [
    'resource-read-no-uri',
    'API_CALL_UNKNOWN',
    (child) => child.receive({ t: 'call', id: 1, tool: 'resources.read', args: '{"uri":5}', api: true }),
  ],
  [
    'resource-list-with-arguments',
    'API_CALL_UNKNOWN',
    (child) => child.receive({ t: 'call', id: 1, tool: 'resources.list', args: '{"cursor":"x"}', api: true }),
  ],
  [
    'api-flag-not-true',
    'FRAME_UNDECODABLE',
    (child) => child.receive({ t: 'call', id: 1, tool: 'resources.list', args: '{}', api: 1 }),
  ],
  ...(
    [
      ['state-call-unknown', 'state.clear', '{}'],
      ['state-load-no-key', 'state.load', '{}'],
      ['state-load-key-not-a-string', 'state.load', '{"key":5}'],
      ['state-load-extra-field', 'state.load', '{"key":"k","value":1}'],
      ['state-store-no-value', 'state.store', '{"key":"k"}'],
      ['state-store-ttl-negative', 'state.store', '{"key":"k","value":1,"ttlMs":-1}'],
      ['state-store-ttl-not-whole', 'state.store', '{"key":"k","value":1,"ttlMs":1.5}'],
      ['state-store-ttl-a-string', 'state.store', '{"key":"k","value":1,"ttlMs":"1"}'],
      ['state-keys-prefix-not-a-string', 'state.keys', '{"prefix":null}'],
      ['state-remove-two-fields', 'state.remove', '{"key":"k","prefix":"p"}'],
      ['skills-call-unknown', 'skills.remove', '{"name":"x"}'],
      ['skills-list-with-a-field', 'skills.list', '{"prefix":"x"}'],
      ['skills-get-no-name', 'skills.get', '{}'],
      ['skills-get-name-not-a-string', 'skills.get', '{"name":["x"]}'],
      ['skills-save-no-code', 'skills.save', '{"name":"x","description":"d"}'],
      ['skills-save-code-not-a-string', 'skills.save', '{"name":"x","description":"d","code":5}'],
      ['skills-save-schema-an-array', 'skills.save', '{"name":"x","description":"d","code":"1","inputSchema":[]}'],
      ['skills-save-overwrite-a-string', 'skills.save', '{"name":"x","description":"d","code":"1","overwrite":"yes"}'],
      ['skills-save-unknown-field', 'skills.save', '{"name":"x","description":"d","code":"1","body":"b"}'],
    ] as const
  ).map(([mode, tool, args]): [string, Breach, (child: FakeChannel) => void] => [
    mode,
    'API_CALL_UNKNOWN',
    (child) => child.receive({ t: 'call', id: 1, tool, args, api: true }),
  ]),
  ['state-call-as-a-tool', 'TOOL_NOT_GIVEN', (child) => call(child, 1, 'state.load')],
  ['skills-call-as-a-tool', 'TOOL_NOT_GIVEN', (child) => call(child, 1, 'skills.get')],
  [
    'call-id-reused',
    'CALL_ID_REUSED',
    (child) => {
      call(child, 1);
      call(child, 1);
    },
  ],
  [
    'call-id-out-of-order',
    'CALL_ID_REUSED',
    (child) => {
      call(child, 2);
      call(child, 1);
    },
  ],
  [
    'too-many-calls',
    'TOO_MANY_CALLS',
    (child) => {
      for (let id = 1; id <= 17; id++) call(child, id);
    },
  ],
  ['args-too-large', 'ARGS_TOO_LARGE', (child) => call(child, 1, 'hang', JSON.stringify({ text: 'x'.repeat(4 * 1024 * 1024) }))],
  [
    'args-too-many-values',
    'ARGS_TOO_MANY_VALUES',
    (child) => call(child, 1, 'hang', JSON.stringify({ list: Array.from({ length: 100_001 }, () => 0) })),
  ],
  ['args-not-object', 'ARGS_INVALID', (child) => call(child, 1, 'hang', '[1,2]')],
  ['args-not-json', 'ARGS_INVALID', (child) => call(child, 1, 'hang', '{nope')],
  [
    'too-many-notifies',
    'TOO_MANY_NOTIFIES',
    (child) => {
      for (let i = 1; i <= 3; i++) child.receive({ t: 'notify', payload: String(i) });
    },
  ],
  ['notify-not-json', 'NOTIFY_INVALID', (child) => child.receive({ t: 'notify', payload: 'not json' })],
  ['value-not-json', 'VALUE_NOT_JSON', (child) => child.receive({ t: 'end', status: 'finished' }, 'not json')],
  ['value-as-field', 'FRAME_UNDECODABLE', (child) => child.receive({ t: 'end', status: 'finished', value: '"a field"' })],
  [
    'value-too-large',
    'VALUE_TOO_LARGE',
    (child) => child.receive({ t: 'end', status: 'finished' }, JSON.stringify('x'.repeat(1024 * 1024 + 1024))),
  ],
  ['payload-not-an-ending', 'FRAME_UNDECODABLE', (child) => child.receive({ t: 'out', text: 'x' }, '"a payload"')],
  ['read-more-than-sent', 'MESSAGE_UNEXPECTED', (child) => child.receive({ t: 'end', status: 'finished', read: 5 })],
  ['unsent-not-given', 'MESSAGE_UNEXPECTED', (child) => child.receive({ t: 'end', status: 'finished', unsent: '{"other":1}' })],
  ['unsent-negative', 'MESSAGE_UNEXPECTED', (child) => child.receive({ t: 'end', status: 'finished', unsent: '{"hang":-1}' })],
  ['output-past-batch', 'OUTPUT_PAST_BATCH', (child) => child.receive({ t: 'out', text: 'x'.repeat(64 * 1024 + 1) })],
  ['exit-before-end', 'EXIT_BEFORE_END', (child) => child.exit()],
  ['stopped-unasked', 'MESSAGE_UNEXPECTED', (child) => child.receive({ t: 'end', status: 'stopped' })],
  ['ready-again', 'MESSAGE_UNEXPECTED', (child) => child.receive({ t: 'ready', v: PROTOCOL_VERSION, prelude: 'snapshot' })],
  [
    'show-not-a-block',
    'SHOW_INVALID',
    (child) => child.receive({ t: 'show', blocks: JSON.stringify([{ type: 'video', data: 'AAAA' }]) }),
  ],
  [
    'show-extra-field',
    'SHOW_INVALID',
    (child) =>
      child.receive({ t: 'show', blocks: JSON.stringify([{ type: 'text', text: 'x', annotations: { audience: ['user'] } }]) }),
  ],
  [
    'show-not-base64',
    'SHOW_INVALID',
    (child) => child.receive({ t: 'show', blocks: JSON.stringify([{ type: 'image', data: '!!!', mimeType: 'image/png' }]) }),
  ],
  [
    'show-past-cap',
    'SHOW_INVALID',
    (child) =>
      child.receive({
        t: 'show',
        blocks: JSON.stringify([{ type: 'image', data: 'A'.repeat(4 * 1024 * 1024 + 4), mimeType: 'image/png' }]),
      }),
  ],
  ['show-empty', 'SHOW_INVALID', (child) => child.receive({ t: 'show', blocks: '[]' })],
];

describe('a child that breaks the protocol', () => {
  it.each(MODES)('ends as crashed, and is killed, when it sends %s', async (_mode, breach, send) => {
    const { script, child } = fakeScript({ tools: toolEntries('hang'), callTool: hangingTool });
    await child.ready;
    send(child);
    await script.ended;
    const ret = script.takeReturn();
    expect(ret.status).toBe('crashed');
    expect(ret.isError).toBe(true);
    expect(ret.error).toBe(
      breach === 'EXIT_BEFORE_END'
        ? `the script's process crashed: ${BREACH[breach]} (exit code 0)`
        : `the script's process broke the protocol: ${BREACH[breach]}`,
    );
    if (breach !== 'EXIT_BEFORE_END') expect(child.kills).toBeGreaterThan(0);
  });

  it('hears nothing after a breach: a later ending does not replace the crash', async () => {
    const { script, child } = fakeScript();
    child.receive({ t: 'notify', payload: 'not json' });
    child.receive({ t: 'end', status: 'finished' }, '1');
    await script.ended;
    expect(script.takeReturn()).toMatchObject({ status: 'crashed', error: expect.stringContaining(BREACH.NOTIFY_INVALID) });
  });

  it('crashes a script whose child speaks first in another message than ready, or another version', async () => {
    for (const [first, breach] of [
      [{ t: 'out', text: 'early' }, 'MESSAGE_UNEXPECTED'],
      [{ t: 'ready', v: PROTOCOL_VERSION + 1, prelude: 'snapshot' }, 'PROTOCOL_VERSION'],
    ] as const) {
      const child = new RawChild();
      child.say(first);
      await expect(child.ready).rejects.toThrow(breach);
      expect(child.breaches).toEqual([breach]);
    }
  });
});

/** A fake channel whose child has not said ready yet: the handshake is the test's. */
class RawChild {
  readonly breaches: Breach[] = [];
  readonly ready: Promise<void>;
  private readonly reader: ChildFrameReader;

  constructor() {
    let settle: (error?: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
    this.reader = new ChildFrameReader({
      ready: () => settle(),
      message: () => {},
      breach: (reason) => {
        this.breaches.push(reason);
        settle(new Error(reason));
      },
    });
  }

  say(message: object): void {
    this.reader.push(encodeFrame(message));
  }
}
