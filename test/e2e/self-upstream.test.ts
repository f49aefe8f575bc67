import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, nodeEntry, publishedEntry, runBin, startServer, valueOf } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

/**
 * A config like a Claude Desktop file pointed at with --config: it holds the entry that starts
 * codemode-mcp with this same config (by command, and behind a shell, which only the environment
 * marker can tell), beside a real server.
 */
function configWithSelf(): string {
  const file = join(makeTempDir('self-upstream'), 'claude_desktop_config.json');
  const mcpServers = {
    memory: nodeEntry(publishedEntry('server-memory')),
    codemode: nodeEntry(BIN, ['--config', file]),
    wrapped: { command: 'sh', args: ['-c', `exec "${process.execPath}" "${BIN}" --config "${file}"`] },
  };
  writeFileSync(file, JSON.stringify({ mcpServers }));
  return file;
}

const SKIPPED = 'codemode-mcp: upstream "codemode" is codemode-mcp itself (' + `${process.execPath} ${BIN} --config `;
const REFUSED = 'codemode-mcp: upstream "wrapped" is codemode-mcp itself, and refused to start under us: not tried again';

describe('a config that lists codemode-mcp itself', () => {
  // Regression: `tools` on such a config left 10 copies after 15 s, 6 of them orphans with their own upstreams.
  test('`tools` skips the entry it knows by command, is refused by the one behind a shell, lists the rest, and leaves no process', async () => {
    const { stdout, stderr, exitCode, left } = await runBin(['tools', '--config', configWithSelf()]);
    expect(stderr).toContain(SKIPPED);
    expect(stderr).toContain(REFUSED);
    expect(stderr).toContain('wrapped: it exited during startup; its stderr last said: "codemode-mcp: refused to start nested');
    expect(stdout).toMatch(/from 1 server; not from "wrapped", which could not start; 3 ask a person before each call\./);
    expect(stdout).toContain('== memory__read_graph');
    expect(exitCode).toBe(1);
    expect(left).toEqual([]);
  });

  test('the server skips it likewise, serves the other upstream, and leaves no process when closed', async () => {
    // No pool: what is checked is the upstreams it starts and skips; the one run makes its child.
    const server = await startServer(['--config', configWithSelf(), '--pool', '0']);
    const result = await server.run({ code: 'return typeof (await tools["memory__read_graph"]({})).structuredContent' });
    expect(valueOf(result)).toBe('object');
    expect(server.stderr()).toContain(SKIPPED);
    expect(server.stderr()).toContain(REFUSED);
    expect(server.stderr().match(/refused to start under us/g)).toHaveLength(1);
    expect(await server.close()).toEqual([]);
  });
});
