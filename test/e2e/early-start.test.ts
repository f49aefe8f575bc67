/**
 * The early start over stdio (src/commands/serve-stdio/early-start.ts): when the client's first line is
 * `initialize`, the stdio upstreams and one pooled child are spawned before the server's modules
 * load, and the server adopts them rather than starting them again; any other first line spawns
 * nothing until `initialize`.
 */
import { describe, expect, test } from 'vitest';
import { readRecord } from '../upstream/specs.js';
import { childPidsOf } from '../support/processes.js';
import { INITIALIZE, RawServer, rawServer } from '../support/raw-client.js';
import { recorderConfig, scriptChildrenOf } from '../support/recorder.js';

const EARLY_LINE = /the client's first message is initialize: 1 stdio upstream and 1 pooled script child started/;

describe('the early start over stdio', () => {
  test('initialize first: the upstream and a pooled child start early and are adopted, each started once, and a script runs on them', async () => {
    const { config, recordFile } = recorderConfig('early-start');
    const server = rawServer(['--config', config, '--pool', '2', '--log-level', 'debug']);
    await server.initialize();
    await server.stderrMatching(EARLY_LINE);
    const [early] = scriptChildrenOf(server.pid);
    await server.write({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    await server.answerTo('list');
    // The child spawned early is the pool's first, adopted; once started, the pool fills to `pool`, not more.
    await server.stderrMatching(/started; the pool holds 2 children/);
    const children = scriptChildrenOf(server.pid);
    expect(children).toHaveLength(2);
    expect(children).toContain(early);
    await server.write({
      jsonrpc: '2.0',
      id: 'run',
      method: 'tools/call',
      params: { name: 'code_execution', arguments: { code: 'return (await tools.echo({ text: "adopted" })).content[0].text' } },
    });
    const answer = await server.answerTo('run');
    expect(answer.result?.structuredContent).toMatchObject({ status: 'finished', value: 'adopted' });
    expect(readRecord(recordFile).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  test('a first line that is not initialize (a server/discover probe) starts nothing; initialize then starts as usual', async () => {
    const { config, recordFile } = recorderConfig('early-start');
    const server = rawServer(['--config', config, '--pool', '1', '--log-level', 'debug']);
    await server.write({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: {} });
    expect((await server.answerTo('discover')).error).toBeDefined();
    expect(childPidsOf(server.pid)).toEqual([]);
    await server.initialize();
    await server.write({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    await server.answerTo('list');
    expect(server.stderr()).not.toMatch(/first message is initialize/);
    expect(scriptChildrenOf(server.pid)).toHaveLength(1);
    expect(readRecord(recordFile).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  test('a client that sends initialize and leaves at once: the server exits and leaves nothing it spawned early', async () => {
    const { config } = recorderConfig('early-start');
    const server = new RawServer(['--config', config, '--pool', '2', '--log-level', 'debug']);
    await server.write({ ...INITIALIZE, id: 1 });
    // Logged as they are spawned, before the server's modules are evaluated: stdin ends while they start.
    await server.stderrMatching(EARLY_LINE);
    expect(await server.close()).toEqual([]);
    expect(server.process.exitCode).toBe(0);
  });

  test('an initialize the server refuses: what it spawned early is ended at the shutdown, nothing left', async () => {
    const { config } = recorderConfig('early-start');
    const server = new RawServer(['--config', config, '--pool', '2', '--log-level', 'debug']);
    await server.write({ jsonrpc: '2.0', id: 'bad', method: 'initialize', params: { protocolVersion: 7 } });
    expect((await server.answerTo('bad')).error?.code).toBe(-32602);
    await server.stderrMatching(EARLY_LINE);
    expect(await server.close()).toEqual([]);
    expect(server.process.exitCode).toBe(0);
  });
});
