/**
 * The code_execution description over real upstreams, word for word, so that every change to
 * what the model reads is reviewed: server-everything alone; server-filesystem, server-memory
 * and server-everything; and those three with a 200-tool server (240 tools). Run with
 * UPDATE_GOLDEN=1 to rewrite the files after a deliberate change, and read the diff.
 */
import { readFileSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DESCRIPTION_MAX_CHARS, describeCodeExecution } from '../../src/catalog/description.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { UpstreamHub } from '../../src/upstream/hub.js';
import type { StdioUpstreamSpec } from '../../src/upstream/spec.js';
import { waitForNoChildren } from '../support/processes.js';
import { fixture, published } from '../upstream/specs.js';
import { makeTempDir } from '../support/temp-dirs.js';

const GOLDEN_DIR = new URL('./golden/', import.meta.url);
const directory = makeTempDir('golden');

const files = published('files', 'server-filesystem', [directory]);
const memory = published('memory', 'server-memory', [], { MEMORY_FILE_PATH: join(directory, 'memory.jsonl') });
const everything = published('everything', 'server-everything', ['stdio']);
const workspace = fixture('workspace', 'workspace.mjs');

async function descriptionOf(specs: StdioUpstreamSpec[]): Promise<{ text: string; servers: string[]; toolCount: number }> {
  const hub = new UpstreamHub(specs, {
    clientInfo: { name: 'golden', version: '0.0.0' },
    settings: DEFAULT_SETTINGS,
    log: () => {},
  });
  try {
    await hub.start();
    const catalog = hub.catalog();
    return {
      text: describeCodeExecution(catalog, { yieldMs: DEFAULT_SETTINGS.yieldMs }),
      servers: specs.map((s) => s.name),
      toolCount: catalog.tools.length,
    };
  } finally {
    await hub.close();
  }
}

function compareWithGolden(name: string, text: string): void {
  const file = new URL(name, GOLDEN_DIR);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

afterAll(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

describe('the code_execution description, word for word', () => {
  test.each([
    ['one upstream (server-everything)', 'description-1.txt', [everything], 17],
    ['three upstreams (filesystem, memory, everything)', 'description-3.txt', [files, memory, everything], 40],
    ['four upstreams, one of them with 200 tools', 'description-4.txt', [files, memory, everything, workspace], 240],
  ] as const)('%s', async (_name, golden, specs, expectedTools) => {
    const { text, servers, toolCount } = await descriptionOf([...specs]);
    expect(toolCount).toBe(expectedTools);
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    // Every server is named with its tool count, however many tools there are.
    for (const server of servers) expect(text).toMatch(new RegExp(`\\n${server} \\(\\d+ tools`));
    compareWithGolden(golden, text);
  });
});
