import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isCliExit, parseCli } from '../../src/cli/parse-cli.js';
import { runsCodemodeMcp, skipOwnEntries } from '../../src/config/own-entries.js';
import type { UpstreamSpec } from '../../src/config/types.js';
import { ROOT, publishedEntry } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** The checkout's own executable, as a config's entry would name it: this file only reads its path. */
const BIN_FILE = join('bin', 'codemode-mcp.js');
const OWN_PATH = join(ROOT, BIN_FILE);

const stdio = (name: string, command: string, args: string[] = []): UpstreamSpec => ({
  name,
  transport: 'stdio',
  command,
  args,
  env: {},
  policy: {},
});

describe('an entry that runs codemode-mcp itself', () => {
  test.each([
    ['npx -y, as Claude Desktop configs have it', 'npx', ['-y', 'codemode-mcp', '--config', '/x/servers.json']],
    ['another version', 'npx', ['--yes', 'codemode-mcp@0.0.9']],
    ['npm exec', 'npm', ['exec', 'codemode-mcp', '--', '--config', 'x']],
    ['pnpm dlx', 'pnpm', ['dlx', 'codemode-mcp']],
    ['installed on PATH', 'codemode-mcp', ['--config', 'x']],
    ['node and the path of the bin', 'node', [OWN_PATH, '--config', 'x']],
    ['node with its own options first', '/usr/local/bin/node', ['--enable-source-maps', OWN_PATH]],
    ['the bin by its absolute path', OWN_PATH, ['--config', 'x']],
    ["another checkout's bin", join('/opt/other/node_modules/codemode-mcp', BIN_FILE), []],
    ['a Windows shim', 'C:\\Users\\me\\AppData\\Roaming\\npm\\codemode-mcp.cmd', []],
  ])('is found: %s', (_how, command, args) => {
    expect(runsCodemodeMcp(command, args, OWN_PATH)).toBe(true);
  });

  test('is found through a symlink of another name, and by a path relative to its cwd', () => {
    const dir = makeTempDir('own-entries');
    const link = join(dir, 'cm');
    symlinkSync(OWN_PATH, link);
    expect(runsCodemodeMcp(link, [], OWN_PATH)).toBe(true);
    expect(runsCodemodeMcp('node', ['../cm'], OWN_PATH, join(dir, 'sub'))).toBe(true);
    expect(runsCodemodeMcp('node', [BIN_FILE], OWN_PATH, ROOT)).toBe(true);
  });

  test.each([
    ['a reference server through npx', 'npx', ['-y', '@modelcontextprotocol/server-memory']],
    ['a package whose name only starts like ours', 'npx', ['codemode-mcp-helper']],
    ['a node script', 'node', [publishedEntry('server-memory')]],
    ['a path that does not exist', '/no/such/server', []],
    ['a shell wrapper (the environment marker catches it instead)', 'sh', ['-c', `node ${OWN_PATH}`]],
  ])('is not taken for another server: %s', (_how, command, args) => {
    expect(runsCodemodeMcp(command, args, OWN_PATH)).toBe(false);
  });

  test('is skipped with a line naming it and its command; the others are kept in order; a remote entry is never ours', () => {
    const upstreams: UpstreamSpec[] = [
      stdio('memory', 'node', [publishedEntry('server-memory')]),
      stdio('codemode', 'npx', ['-y', 'codemode-mcp', '--config', 'claude_desktop_config.json']),
      { name: 'remote', transport: 'http', url: 'https://example.com/codemode-mcp', headers: {}, policy: {} },
    ];
    const { kept, skipped } = skipOwnEntries(upstreams, OWN_PATH);
    expect(kept.map((upstream) => upstream.name)).toEqual(['memory', 'remote']);
    expect(skipped).toEqual([
      'upstream "codemode" is codemode-mcp itself (npx -y codemode-mcp --config claude_desktop_config.json): ' +
        'skipped, since it would start these same upstreams again, and so on without end; list the servers to front in a config without it',
    ]);
  });

  // Regression (issue 45, item 8): our own entry in VS Code's mcp.json passes ${workspaceFolder}, which
  // VS Code expands and we refuse; it was expanded (and refused) before it was found to be ours.
  test("is skipped unread in a VS Code mcp.json, its VS Code variables left alone, and the file's other servers are served", () => {
    const workspace = makeTempDir('own-entries-vscode');
    mkdirSync(join(workspace, '.vscode'));
    const file = join(workspace, '.vscode', 'mcp.json');
    const servers = {
      codemode: { type: 'stdio', command: 'node', args: [OWN_PATH, '--config', '${workspaceFolder}/.vscode/mcp.json'] },
      memory: { type: 'stdio', command: 'node', args: [publishedEntry('server-memory')] },
    };
    writeFileSync(file, JSON.stringify({ servers }));
    const invocation = parseCli(['--config', file], { ownBin: OWN_PATH, env: {} });
    if (isCliExit(invocation)) throw new Error(invocation.stderr);
    expect(invocation.upstreams.map((upstream) => upstream.name)).toEqual(['memory']);
    expect(invocation.skippedUpstreams).toEqual([
      `upstream "codemode" is codemode-mcp itself (node ${OWN_PATH} --config \${workspaceFolder}/.vscode/mcp.json): ` +
        'skipped, since it would start these same upstreams again, and so on without end; list the servers to front in a config without it',
    ]);
    // Anywhere else, a VS Code variable is still refused, saying what it is.
    writeFileSync(file, JSON.stringify({ servers: { ...servers, memory: { ...servers.memory, cwd: '${workspaceFolder}' } } }));
    const refused = parseCli(['--config', file], { ownBin: OWN_PATH, env: {} });
    expect(isCliExit(refused) ? refused.stderr : '').toMatch(/\$\{workspaceFolder\}.*VS Code/);
  });
});
