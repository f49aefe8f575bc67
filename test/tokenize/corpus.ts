/**
 * A corpus of real tool results for the false-positive test: what server-everything answers, and
 * what the filesystem server reads of this repository (its source, docs, fixtures and bench
 * results), each result's text as a client would get it. Files that hold personal data on
 * purpose (the tokenizer's own tests, the customer rows) are left out.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRunning } from '../support/processes.js';
import { until } from '../support/waiting.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What the corpus reads of the repository. */
const FOLDERS = ['src', 'engine', 'prelude', 'protocol', 'common', 'docs', 'bench', 'test/fixtures', 'examples'];
const TEXT_FILE = /\.(?:ts|mts|mjs|js|json|md)$/;
/** Files with personal data in them on purpose. */
const LEFT_OUT = [/^test\/tokenize\//, /customer-rows\./, /^src\/tokenize\//, /^docs\/tokenize\.md$/];

export interface CorpusText {
  /** Where it came from: `everything get-sum`, `filesystem src/main.ts`. */
  readonly source: string;
  readonly text: string;
}

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && TEXT_FILE.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !LEFT_OUT.some((pattern) => pattern.test(file)))
    .sort();
}

async function withServer<T>(name: string, args: string[], use: (client: Client) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  const client = new Client({ name: 'corpus', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  try {
    return await use(client);
  } finally {
    await client.close();
    if (pid !== null) await until(`${name} (pid ${pid}) to exit after close`, () => !isRunning(pid));
  }
}

/** A tool result's text blocks, and its structured content as JSON text. */
function resultTexts(source: string, result: { content?: unknown; structuredContent?: unknown }): CorpusText[] {
  const texts: CorpusText[] = [];
  for (const block of (result.content ?? []) as Array<{ type: string; text?: string; data?: string }>) {
    if (typeof block.text === 'string') texts.push({ source, text: block.text });
    if (typeof block.data === 'string') texts.push({ source: `${source} (data)`, text: block.data });
  }
  if (result.structuredContent !== undefined)
    texts.push({ source: `${source} (structured)`, text: JSON.stringify(result.structuredContent) });
  return texts;
}

async function everythingTexts(): Promise<CorpusText[]> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  return withServer('server-everything', [entry, 'stdio'], async (client) => {
    const texts: CorpusText[] = [];
    const { tools } = await client.listTools();
    texts.push({ source: 'everything tools/list', text: JSON.stringify(tools, null, 2) });
    const { resources } = await client.listResources();
    texts.push({ source: 'everything resources/list', text: JSON.stringify(resources, null, 2) });
    for (const resource of resources) {
      const read = await client.readResource({ uri: resource.uri });
      for (const content of read.contents) {
        if ('text' in content) texts.push({ source: `everything ${resource.uri}`, text: content.text });
      }
    }
    const calls: Array<[string, Record<string, unknown>]> = [
      ['echo', { message: 'order 1042 shipped at 2026-12-07T13:04:22Z' }],
      ['get-sum', { a: 1_234_567, b: 0.89 }],
      ['get-tiny-image', {}],
      ['get-resource-links', { count: 10 }],
      ['get-resource-reference', { resourceType: 'Text', resourceId: 3 }],
      ['get-resource-reference', { resourceType: 'Blob', resourceId: 4 }],
      ...['error', 'success', 'debug'].map((messageType): [string, Record<string, unknown>] => [
        'get-annotated-message',
        { messageType, includeImage: true },
      ]),
      ...['New York', 'Chicago', 'Los Angeles'].map((location): [string, Record<string, unknown>] => [
        'get-structured-content',
        { location },
      ]),
    ];
    for (const [name, args] of calls) {
      texts.push(...resultTexts(`everything ${name}`, await client.callTool({ name, arguments: args })));
    }
    return texts;
  });
}

async function filesystemTexts(): Promise<CorpusText[]> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  return withServer('server-filesystem', [entry, ROOT], async (client) => {
    const texts: CorpusText[] = [];
    texts.push(
      ...resultTexts(
        'filesystem directory_tree src',
        await client.callTool({ name: 'directory_tree', arguments: { path: join(ROOT, 'src') } }),
      ),
    );
    for (const folder of FOLDERS) {
      for (const file of filesUnder(folder)) {
        const result = await client.callTool({ name: 'read_text_file', arguments: { path: join(ROOT, file) } });
        texts.push(...resultTexts(`filesystem ${file}`, result));
      }
    }
    return texts;
  });
}

export async function readCorpus(): Promise<CorpusText[]> {
  return [...(await everythingTexts()), ...(await filesystemTexts())];
}
