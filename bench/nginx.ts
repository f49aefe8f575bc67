/**
 * Three codemode-mcp instances (`--instance-id a|b|c`) behind a real nginx (Debian's package),
 * configured with docs/deploy.md's block as written, only its ports changed, and an access log
 * of where each request went and what named it. Shared by test/e2e/http-nginx*.test.ts and the
 * nginx-load bench: the caller starts each instance its own way (`start`, given the flags this
 * module adds), and stops the instances; this module starts and stops nginx.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/support/package-root.js';

/** Debian's nginx where it is installed, else undefined (the tests and the bench then skip, saying so). */
export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find(
  (path) => spawnSync(path, ['-v']).status === 0,
);

export const INSTANCES = ['a', 'b', 'c'] as const;
export type Instance = (typeof INSTANCES)[number];
/** The ports docs/deploy.md's block gives the instances. */
const DOC_PORTS: Record<Instance, number> = { a: 8101, b: 8102, c: 8103 };

/** The instance a session, script or task id names by its prefix (`b.3fa9c1-4` → `b`). */
export const prefixOf = (id: string): Instance => id.split('.')[0] as Instance;

/** How clients authenticate: one token for everyone, or a tokens file giving each principal its own. */
export type Auth = { readonly token: string } | { readonly tokens: Readonly<Record<string, string>> };

/** One request as nginx passed it on: where it went (every instance tried, in order) and what named it. */
export interface Routed {
  readonly to: string[];
  readonly method: string;
  readonly session: string;
  readonly script: string;
  readonly name: string;
  readonly status: string;
}

const FIELDS = [
  '$upstream_addr',
  '$http_mcp_method',
  '$http_mcp_session_id',
  '$http_mcp_param_script',
  '$http_mcp_name',
  '$status',
];
/** The directories nginx writes its temporary files to, under its prefix. */
const TEMP_DIRS = ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];

export interface BehindNginx<Server> {
  readonly instances: Record<Instance, Server>;
  /** nginx's `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  /** Every request nginx has logged so far (all of them once stopNginx has resolved). */
  routed(): Routed[];
  /** The instance that answered a request (the last nginx tried). */
  answeredBy(request: Routed): Instance | undefined;
  /** The instance at an address nginx logged (`127.0.0.1:<port>`). */
  instanceAt(address: string): Instance | undefined;
  /** Stops nginx (SIGTERM) and waits for its exit; the instances are the caller's to stop. */
  stopNginx(): Promise<void>;
}

/** docs/deploy.md's nginx block, ports changed. */
function deployBlock(ports: Record<Instance, number>, nginxPort: number): string {
  const doc = readFileSync(join(PACKAGE_ROOT, 'docs', 'deploy.md'), 'utf8');
  let block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  if (block === undefined) throw new Error('docs/deploy.md has no nginx block');
  for (const instance of INSTANCES) block = block.replaceAll(`127.0.0.1:${DOC_PORTS[instance]}`, `127.0.0.1:${ports[instance]}`);
  return block.replace('listen 8080;', `listen 127.0.0.1:${nginxPort};`);
}

/** The flags an instance gets besides the caller's: its id, and the token or the tokens file. */
function authFlags(auth: Auth, dir: string): string[] {
  if ('token' in auth) return ['--http-token', auth.token];
  // The server refuses a tokens file others can read; nginx's prefix is open to its workers.
  const secrets = join(dir, 'secrets');
  mkdirSync(secrets, { mode: 0o700 });
  const file = join(secrets, 'tokens.json');
  writeFileSync(file, JSON.stringify(auth.tokens), { mode: 0o600 });
  return ['--http-tokens-file', file];
}

/** A loopback port free a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Resolves true once something accepts connections on the loopback port, false once `gone` says
 * the process that was to listen there is gone; a refusal comes at once, so each try is quick.
 */
async function accepting(port: number, gone: () => boolean): Promise<boolean> {
  const accepts = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  while (!(await accepts())) {
    if (gone()) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Reads nginx's access log, written in FIELDS' format. */
function readRouted(accessLog: string): Routed[] {
  return readFileSync(accessLog, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [to, method, session, script, name, status] = line.split('|');
      // nginx logs an absent header as "-".
      const given = (value: string | undefined) => (value === '-' ? '' : value!);
      return {
        to: to!.split(', '),
        method: given(method),
        session: given(session),
        script: given(script),
        name: given(name),
        status: status!,
      };
    });
}

/**
 * Starts the three instances (each by `start`, given `--instance-id` and the auth flags), then nginx in front of them on a free loopback port, its files in `dir` (a fresh
 * directory the caller removes). An instance that fails to start, or nginx, fails the whole.
 */
export async function startBehindNginx<Server extends { readonly port: number }>(options: {
  readonly dir: string;
  readonly auth: Auth;
  readonly start: (id: Instance, flags: string[]) => Promise<Server>;
}): Promise<BehindNginx<Server>> {
  if (NGINX === undefined) throw new Error('nginx is not installed here (apt-get install nginx)');
  const { dir } = options;
  const auth = authFlags(options.auth, dir);
  const started: Server[] = await Promise.all(INSTANCES.map((id) => options.start(id, ['--instance-id', id, ...auth])));
  const instances = Object.fromEntries(INSTANCES.map((id, i) => [id, started[i]!])) as Record<Instance, Server>;
  const addresses = new Map(INSTANCES.map((id) => [`127.0.0.1:${instances[id].port}`, id]));
  const ports = Object.fromEntries(INSTANCES.map((id) => [id, instances[id].port])) as Record<Instance, number>;
  const port = await freePort();

  // nginx's workers run as nobody when started by root: they may need to write its temp files.
  chmodSync(dir, 0o777);
  for (const temp of TEMP_DIRS) {
    mkdirSync(join(dir, temp));
    chmodSync(join(dir, temp), 0o777);
  }
  const accessLog = join(dir, 'access.log');
  const errorLog = join(dir, 'error.log');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${errorLog} notice;`,
      'events { worker_connections 256; }',
      'http {',
      `  log_format routed '${FIELDS.join('|')}';`,
      `  access_log ${accessLog} routed;`,
      ...TEMP_DIRS.map((temp) => `  ${temp === 'body' ? 'client_body' : temp}_temp_path ${join(dir, temp)};`),
      deployBlock(ports, port),
      '}',
    ].join('\n'),
  );
  const nginx: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', errorLog, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let nginxStderr = '';
  nginx.stderr!.on('data', (chunk: Buffer) => void (nginxStderr += chunk.toString()));
  const exit = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  if (!(await accepting(port, () => nginx.exitCode !== null || nginx.signalCode !== null))) {
    throw new Error(`nginx exited: ${nginxStderr}${readFileSync(errorLog, 'utf8')}`);
  }

  const instanceAt = (address: string) => addresses.get(address);
  return {
    instances,
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    routed: () => readRouted(accessLog),
    answeredBy: (request) => instanceAt(request.to.at(-1)!),
    instanceAt,
    stopNginx: async () => {
      if (nginx.exitCode === null && nginx.signalCode === null) nginx.kill('SIGTERM');
      await exit;
    },
  };
}
