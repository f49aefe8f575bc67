/**
 * show(block | toolResult), and a returned tool result's non-text blocks: content blocks that
 * reach the answer after its text, once, within the per-answer cap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCaller } from '../../src/script-host/apis.js';
import { scriptAnswer } from '../../src/mcp/code-execution/answer.js';
import { waitForNoChildren } from '../support/processes.js';
import { runScript, startScript } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Answers with text, an image and a resource, as server-everything's tools do. */
const mixedTool: ToolCaller = async () => ({
  content: [
    { type: 'text', text: 'here is the picture' },
    { type: 'image', data: PNG, mimeType: 'image/png', annotations: { audience: ['user'] } },
    { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'the notes' } },
  ],
});

describe('show()', () => {
  it('puts a block into the answer after the status text, and the text says what follows', async () => {
    const ret = await runScript(`show({ type: "image", data: ${JSON.stringify(PNG)}, mimeType: "image/png" }); return 1`);
    expect(ret.status, ret.error).toBe('finished');
    const answer = scriptAnswer(ret);
    expect(answer.content).toEqual([
      {
        type: 'text',
        text: expect.stringContaining(`\nshown: 1 block after this text: image (image/png, ${PNG.length} bytes of base64)`),
      },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    expect(answer.structuredContent).toMatchObject({ shown: [{ type: 'image', mimeType: 'image/png', dataChars: PNG.length }] });
  });

  it('shows every block of a tool result, text included, with only the fields MCP defines for each', async () => {
    const ret = await runScript('show(await tools.echo({})); return "done"', { callTool: mixedTool });
    expect(ret.shown.blocks).toEqual([
      { type: 'text', text: 'here is the picture' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'the notes' } },
    ]);
  });

  it("passes a returned tool result's image and resource through as blocks, leaving a note in the value where their data was", async () => {
    const ret = await runScript('return await tools.echo({})', { callTool: mixedTool });
    expect(ret.shown.blocks.map((block) => block.type)).toEqual(['image', 'resource']);
    const value = JSON.parse(ret.value!) as { content: Array<Record<string, unknown>> };
    expect(value.content[0]).toEqual({ type: 'text', text: 'here is the picture' });
    expect(value.content[1]).toEqual({
      type: 'image',
      data: `[${PNG.length} characters: shown as a block of this answer]`,
      mimeType: 'image/png',
      annotations: { audience: ['user'] },
    });
    expect((value.content[2]!.resource as Record<string, unknown>).text).toBe('[9 characters: shown as a block of this answer]');
    expect(JSON.stringify(scriptAnswer(ret).content[0])).not.toContain(PNG);
  });

  it('carries blocks up to showMaxBytes per answer, and counts the ones left out', async () => {
    const block = `{ type: "text", text: "x".repeat(600) }`;
    const ret = await runScript(`show(${block}); show(${block}); show(${block}); return 1`, { limits: { showMaxBytes: 1_500 } });
    expect(ret.shown.blocks).toHaveLength(2);
    expect(ret.shown.leftOut).toEqual({ blocks: 1, bytes: 625 });
    expect(scriptAnswer(ret).content[0]).toMatchObject({
      text: expect.stringContaining("\nnot shown: 1 block (625 bytes), past what one answer carries (the server's showMaxBytes)"),
    });
  });

  it('gives each answer the blocks shown since the one before', async () => {
    // The script waits on a call the test answers, and prints after each show: its output arriving means its show has.
    const gates: Array<() => void> = [];
    const gate: ToolCaller = () => new Promise((resolve) => gates.push(() => resolve({ content: [] })));
    const printed: string[] = [];
    let onPrint = (): void => {};
    const script = startScript(
      'show({ type: "text", text: "first" }); console.log("1"); await tools.echo({}); show({ type: "text", text: "second" }); console.log("2"); await tools.echo({})',
      {
        callTool: gate,
        onOutput: (text) => {
          printed.push(text);
          onPrint();
        },
      },
    );
    const printedCount = (n: number) => new Promise<void>((resolve) => (onPrint = () => printed.length >= n && resolve()));
    await printedCount(1);
    expect((await script.observe(0)).shown.blocks).toEqual([{ type: 'text', text: 'first' }]);
    const second = printedCount(2);
    while (gates.length === 0) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
    await second;
    expect((await script.observe(0)).shown.blocks).toEqual([{ type: 'text', text: 'second' }]);
    script.stop('requested');
    await script.ended;
    expect((await script.observe(0)).shown.blocks).toEqual([]);
  });

  it('throws, showing nothing, when one show is past showMaxBytes, when show is off, and for data that is not base64', async () => {
    const ret = await runScript(
      `const out = [];
       for (const attempt of [
         () => show({ type: "text", text: "x".repeat(2000) }),
         () => show({ type: "image", data: "not base64!", mimeType: "image/png" }),
       ]) { try { attempt(); out.push("shown") } catch (e) { out.push(e.message) } }
       return out`,
      { limits: { showMaxBytes: 1_000 } },
    );
    expect(JSON.parse(ret.value!)).toEqual([
      "show(x): the blocks are 2027 bytes of JSON, past the 1000 an answer may carry (the server's showMaxBytes); nothing was shown",
      'show(x): the data of block 1 is not base64; nothing was shown',
    ]);
    expect(ret.shown.blocks).toEqual([]);
    const off = await runScript('try { show({ type: "text", text: "x" }) } catch (e) { return e.message }', {
      limits: { showMaxBytes: 0 },
    });
    expect(JSON.parse(off.value!)).toBe('show(x): show is off on this server (its showMaxBytes setting is 0)');
  });
});
