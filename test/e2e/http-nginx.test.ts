/**
 * Two instances behind a real nginx, configured with docs/deploy.md's block as written (only its
 * ports changed): two sessions land on different instances, each works through run, wait and
 * stop, and each instance sees only its own session. Skips, saying so, where nginx is missing;
 * .ci/run installs it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { connectHttp, startHttpServer, type HttpClient, type HttpServer } from '../support/http-server.js';
import { nodeEntry, publishedEntry, structuredOf, textOf, valueOf, writeConfig } from '../support/mcp-client.js';
import { accepting, freePort } from '../support/ports.js';
import { makeTempDir } from '../support/temp-dirs.js';

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((path) => spawnSync(path, ['-v']).status === 0);
const TOKEN = 'nginx-test-token-0123456789abcdef';

if (NGINX === undefined)
  process.stderr.write(
    'http-nginx.test.ts: nginx is not installed here (apt-get install nginx); skipping the load-balancer test\n',
  );

/** docs/deploy.md's nginx block, ports changed. */
function deployBlock(ports: { a: number; b: number; nginx: number }): string {
  const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/deploy.md has no nginx block');
  return block
    .replaceAll('127.0.0.1:8101', `127.0.0.1:${ports.a}`)
    .replaceAll('127.0.0.1:8102', `127.0.0.1:${ports.b}`)
    .replace('listen 8080;', `listen 127.0.0.1:${ports.nginx};`);
}

describe.skipIf(NGINX === undefined)('two instances behind nginx', () => {
  const instances: HttpServer[] = [];
  const clients: HttpClient[] = [];
  let nginx: ChildProcess | undefined;

  afterAll(async () => {
    for (const client of clients) await client.close();
    if (nginx !== undefined && nginx.exitCode === null) {
      const gone = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGTERM');
      await gone;
    }
    for (const instance of instances) expect((await instance.stop()).left).toEqual([]);
  });

  test('two sessions land on different instances, and each works through run, wait and stop', { timeout: 90_000 }, async () => {
    const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });
    const [a, b] = await Promise.all(
      ['a', 'b'].map((id) => startHttpServer(['--config', config, '--instance-id', id, '--http-token', TOKEN])),
    );
    instances.push(a!, b!);
    const ports = { a: a!.port, b: b!.port, nginx: await freePort() };

    const prefix = makeTempDir('nginx');
    // nginx's workers run as nobody when started by root: they may need to write its temp files.
    for (const dir of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(prefix, dir));
    chmodSync(prefix, 0o777);
    for (const dir of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) chmodSync(join(prefix, dir), 0o777);
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      [
        'worker_processes 1;',
        `pid ${join(prefix, 'nginx.pid')};`,
        `error_log ${join(prefix, 'error.log')} notice;`,
        'events { worker_connections 256; }',
        'http {',
        `  access_log ${join(prefix, 'access.log')};`,
        ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (dir) => `  ${dir === 'body' ? 'client_body' : dir}_temp_path ${join(prefix, dir)};`,
        ),
        deployBlock(ports),
        '}',
      ].join('\n'),
    );
    nginx = spawn(NGINX!, ['-p', prefix, '-c', conf, '-e', join(prefix, 'error.log'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let nginxStderr = '';
    nginx.stderr!.on('data', (chunk: Buffer) => void (nginxStderr += chunk.toString()));
    const exited = new Promise((resolve) => nginx!.once('exit', resolve)).then(() => {
      throw new Error(`nginx exited: ${nginxStderr}${readFileSync(join(prefix, 'error.log'), 'utf8')}`);
    });
    await Promise.race([accepting(ports.nginx), exited]);

    const url = `http://127.0.0.1:${ports.nginx}/mcp`;
    const first = await connectHttp(url, { token: TOKEN, name: 'first' });
    clients.push(first);
    const second = await connectHttp(url, { token: TOKEN, name: 'second' });
    clients.push(second);
    const prefixes = [first, second].map((client) => client.transport.sessionId!.split('.')[0]);
    expect(prefixes.sort()).toEqual(['a', 'b']);

    for (const client of [first, second]) {
      expect(valueOf(await client.run({ code: 'return (await tools["get-sum"]({ a: 20, b: 22 })).content[0].text' }))).toContain(
        '42',
      );
      const started = await client.run({ code: 'console.log("working"); await sleep(60_000)', yield_ms: 200 });
      const id = structuredOf(started).script as string;
      expect(textOf(await client.run({ action: 'wait', script: id, yield_ms: 100 }))).toMatch(/^Script \S+ running/);
      expect(textOf(await client.run({ action: 'stop', script: id }))).toMatch(/^Script \S+ stopped/);
      expect(textOf(await client.run({ action: 'list' }))).toContain(id);
    }

    // Each session lived on the instance its prefix names, and ended there.
    for (const client of clients.splice(0)) {
      const session = client.transport.sessionId!;
      await client.close();
      const instance = session.startsWith('a.') ? a! : b!;
      await instance.logged(new RegExp(`session ${session.replace('.', '\\.')} ended \\(the client ended it with DELETE\\)`));
      expect((session.startsWith('a.') ? b! : a!).stderr()).not.toContain(session);
    }
  });
});
