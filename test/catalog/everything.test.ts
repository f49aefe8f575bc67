import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRequire } from 'node:module';
import ts from 'typescript';
import { beforeAll, describe, expect, test } from 'vitest';
import { declarationOf } from '../../src/catalog/declaration.js';
import { summarize } from '../../common/summary.js';
import { CONTENT_TYPE } from '../../common/content-blocks.js';
import { DESCRIPTION_MAX_CHARS, describeCodeExecution } from '../../src/catalog/description.js';
import { renderTools } from '../../src/catalog/render-tools.js';
import type { CatalogTool } from '../../src/catalog/types.js';
import { until } from '../support/waiting.js';

/**
 * The real tool list of @modelcontextprotocol/server-everything, over stdio with the real client.
 * The client offers sampling, elicitation and roots, so the server adds the tools that need them.
 */
async function listEverythingTools(): Promise<CatalogTool[]> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry, 'stdio'], stderr: 'ignore' });
  const client = new Client(
    { name: 'catalog-test', version: '0.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
  );
  await client.connect(transport);
  const pid = transport.pid;
  try {
    const { tools } = await client.listTools();
    return tools.map((tool) => ({
      name: tool.name,
      server: 'everything',
      upstreamName: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      allowed: true,
    }));
  } finally {
    await client.close();
    if (pid !== null) await expectExited(pid);
  }
}

async function expectExited(pid: number): Promise<void> {
  await until(`server-everything (pid ${pid}) to exit after close`, () => !isAlive(pid));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Syntax errors of a declaration, read as a member of an interface, as TypeScript reports them. */
function syntaxErrorsOf(declaration: string): string[] {
  const source = `type Content = unknown;\ninterface Tools {\n${declaration.replace(/^tools\[/m, '[')}\n}\n`;
  const { diagnostics = [] } = ts.transpileModule(source, { reportDiagnostics: true });
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('the catalog of server-everything', () => {
  let tools: CatalogTool[] = [];

  beforeAll(async () => {
    tools = await listEverythingTools();
  });

  test('lists its real tools, those that need a capable client included', () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-structured-content', 'trigger-sampling-request']));
  });

  test('every declaration is well-formed TypeScript', () => {
    for (const tool of tools) {
      const declaration = declarationOf(tool);
      expect(syntaxErrorsOf(declaration), declaration).toEqual([]);
      expect(declaration).toContain(`tools[${JSON.stringify(tool.name)}](args`);
      expect(declaration).not.toContain('cut at');
    }
  });

  test('get-structured-content declares its structured result from the output schema', () => {
    const tool = tools.find((t) => t.name === 'get-structured-content');
    expect(tool).toBeDefined();
    if (tool) {
      expect(declarationOf(tool)).toContain(
        ['  structuredContent?: {', '    /** Temperature in celsius */', '    temperature: number;'].join('\n'),
      );
    }
  });

  test('the code_execution description fits in 2,048 characters and names every tool, the first ones with their summaries', () => {
    const text = describeCodeExecution({ tools, upstreamNotes: [], resourcesOffered: false }, { yieldMs: 30_000 });
    expect(text.length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
    const withSummary = tools.filter((tool) => text.split('\n').some((l) => l.startsWith(`${tool.name}: `)));
    expect(withSummary.length).toBeGreaterThan(tools.length / 2);
    for (const tool of withSummary) {
      const line = text.split('\n').find((l) => l.startsWith(`${tool.name}: `)) ?? '';
      const summary = line.slice(tool.name.length + 2).replace(/…$/, '');
      expect(summary.length, tool.name).toBeGreaterThan(10);
      expect(summarize(tool.description).startsWith(summary), tool.name).toBe(true);
    }
    for (const tool of tools) expect(text).toMatch(new RegExp(`(\\n|, |also: )${tool.name}(:|,|\\n|$)`));
  });

  test('the declaration and the Content type it names, which describe() gives after it, are well-formed TypeScript together', () => {
    for (const tool of tools) {
      const { diagnostics = [] } = ts.transpileModule(
        `${CONTENT_TYPE}\ninterface Tools {\n${declarationOf(tool).replace(/^tools\[/m, '[')}\n}\n`,
        { reportDiagnostics: true },
      );
      expect(
        diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
        tool.name,
      ).toEqual([]);
    }
  });

  test('renderTools prints each allowed tool with its summary and declaration, and the denied ones last', () => {
    const catalog = tools.map((t) => (t.name === 'get-env' ? { ...t, allowed: false } : t));
    const text = renderTools(catalog);
    expect(
      text.startsWith(
        `${tools.length - 1} tools callable from scripts as tools["name"](args), from 1 server; 1 denied by the config.\n`,
      ),
    ).toBe(true);
    for (const tool of catalog.filter((t) => t.allowed)) {
      expect(text).toContain(
        `== ${tool.name} — ${summarize(tool.description)}  [server "everything", tool "${tool.name}"]\n${declarationOf(tool)}\n`,
      );
    }
    expect(text).not.toContain('tools["get-env"]');
    expect(
      text.endsWith(
        'Denied by the config (not callable, and not named to the model):\n  get-env  [server "everything", tool "get-env"]\n',
      ),
    ).toBe(true);
  });
});
