import { afterEach, describe, expect, it } from 'vitest';
import { ToolRefusedError } from '../../src/support/errors.js';
import { renderReturn } from '../../src/mcp/code-execution/render.js';
import type { ToolCaller } from '../../src/script-host/apis.js';
import { waitForNoChildren } from '../support/processes.js';
import { countedHangingTool, runScript, startScript, toolEntries } from '../support/scripts.js';

afterEach(async () => {
  expect(await waitForNoChildren(process.pid)).toEqual([]);
});

const hangingTool: ToolCaller = (_name, _args, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

describe("a script's limits", () => {
  it('rejects a call past its timeout with TimeoutError, and holds its place until the tool answers', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow: ToolCaller = async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 400));
      inFlight--;
      return { content: [] };
    };
    const ret = await runScript(
      'const all = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => tools.echo({ i })));\n' +
        'return all.map((r) => r.status === "rejected" && r.reason instanceof TimeoutError);',
      { callTool: slow, limits: { toolCallTimeoutMs: 100 } },
    );
    expect(JSON.parse(ret.value!)).toEqual(Array(20).fill(true));
    expect(peak).toBe(16);
    expect(ret.calls.unseen).toHaveLength(10);
    expect(ret.calls.unseen[0]).toEqual({
      tool: 'echo',
      args: '{"i":0}',
      fate: 'timed out after 100 ms; the tool answered later',
    });
    expect(ret.calls.unseenMore).toEqual({ echo: 10 });
  });

  it('listens for cancellation on one signal for 16 calls at once without a MaxListeners warning', async () => {
    // Regression: the per-script cancel signal carried one abort listener per call out (as the SDK adds),
    // and Node warned of a leak at 11.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const listening: ToolCaller = async (_name, _args, signal) => {
      const onAbort = () => {};
      signal.addEventListener('abort', onAbort);
      await new Promise((resolve) => setTimeout(resolve, 50));
      signal.removeEventListener('abort', onAbort);
      return { content: [] };
    };
    const ret = await runScript('await Promise.all(Array.from({ length: 32 }, () => tools.echo({})))', { callTool: listening });
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(ret.status).toBe('finished');
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('ends a script that caught its TimeoutError and returned, without waiting for the tool', async () => {
    // Regression: a timed-out call kept the script alive until the tool answered, or its lifetime.
    const ret = await runScript('try { await tools.echo({}) } catch (e) { return e.name }', {
      callTool: hangingTool,
      limits: { toolCallTimeoutMs: 100, scriptLifetimeMs: 30_000 },
    });
    expect(ret.status).toBe('finished');
    expect(ret.value).toBe('"TimeoutError"');
    expect(ret.calls.unseen).toEqual([{ tool: 'echo', args: '{}', fate: 'timed out after 100 ms; it may still take effect' }]);
  });

  it('names an answer the script never read, when it ends computing', async () => {
    let called: () => void = () => {};
    const reached = new Promise<void>((resolve) => (called = resolve));
    const script = startScript('tools.echo({ row: 1 });\nwhile (true) {}', {
      callTool: async (_name, args) => {
        called();
        return { content: [{ type: 'text', text: JSON.stringify(args) }] };
      },
    });
    await reached;
    // The answer is written into the child's stdin a moment after the tool answers.
    await script.observe(200);
    script.stop('requested');
    await script.ended;
    const ret = await script.observe(0);
    expect(ret.calls.answered).toBe(0);
    expect(ret.calls.unseen).toEqual([
      { tool: 'echo', args: '{"row":1}', fate: 'answered (it took effect), but the script ended before it read the answer' },
    ]);
  });

  it('keeps its own JSON when the script replaces JSON.stringify, and stops promptly', async () => {
    // Regression: the prelude called the script's JSON.stringify for notify (crashing the server on
    // what came back) and, with interrupts off, while counting a stopped script's unsent calls.
    const notified = await runScript('JSON.stringify = () => "not json"; notify({ ok: 1 }); return 2');
    expect(notified.status).toBe('finished');
    expect(notified.notifications).toEqual(['{"ok":1}']);

    const hanging = countedHangingTool(16);
    const script = startScript(
      'JSON.stringify = () => { while (true) {} };\n' +
        'Promise.all(Array.from({ length: 20 }, () => tools.slow({})));\nwhile (true) {}',
      { tools: toolEntries('slow'), callTool: hanging.callTool },
    );
    await hanging.reached;
    script.stop('requested');
    await script.ended;
    const ret = await script.observe(0);
    expect(ret.status).toBe('stopped');
    expect(ret.error).not.toMatch(/killed/);
    expect(ret.calls.unsent).toEqual({ slow: 4 });
  });

  it('rejects a refused call with ToolRefused, saying why', async () => {
    const refusing: ToolCaller = async (name) => {
      throw new ToolRefusedError('TOOL_DENIED', name, 'denied by the config');
    };
    const ret = await runScript(
      'try { await tools.echo({}) } catch (e) { return [e instanceof ToolRefused, e.name, e.message] }',
      { callTool: refusing },
    );
    const [isRefused, name, message] = JSON.parse(ret.value!) as [boolean, string, string];
    expect([isRefused, name]).toEqual([true, 'ToolRefused']);
    expect(message).toBe('TOOL_DENIED: echo was refused: denied by the config. Nothing was sent.');
  });

  it('counts a refused call as refused, not answered', async () => {
    // Regression: `calls: 1 answered` was shown for a call refused with UPSTREAM_DOWN.
    const halfRefusing: ToolCaller = async (name, args) => {
      if ((args as { down?: boolean }).down) throw new ToolRefusedError('UPSTREAM_DOWN', name, 'upstream "x" is down');
      return { content: [{ type: 'text', text: 'ok' }] };
    };
    const read = await runScript('await tools.echo({}); try { await tools.echo({ down: true }) } catch {} return 1', {
      callTool: halfRefusing,
    });
    expect(read.calls).toMatchObject({ answered: 1, refused: 1, unseen: [] });
    expect(renderReturn(read)).toContain('calls: 1 answered, 1 refused (never sent)\n');
  });

  it('throws at once for arguments over 4 MiB, and sends nothing', async () => {
    let called = false;
    const ret = await runScript('try { tools.echo({ s: "x".repeat(4 * 1024 * 1024) }) } catch (e) { return e.message }', {
      callTool: async () => ((called = true), { content: [] }),
    });
    expect(ret.value).toMatch(/past the cap of 4194304; nothing was sent/);
    expect(called).toBe(false);
  });

  it('throws at once for arguments over 100,000 values, and sends nothing', async () => {
    let called = false;
    const ret = await runScript('try { tools.echo({ list: new Array(100001).fill(0) }) } catch (e) { return e.message }', {
      callTool: async () => ((called = true), { content: [] }),
    });
    expect(ret.value).toMatch(/more than 100000 values.*nothing was sent/);
    expect(called).toBe(false);
  });

  it('rejects a result past a third of the memory with ResultTooLarge, saying the call took effect', async () => {
    const big: ToolCaller = async () => ({ content: [{ type: 'text', text: 'x'.repeat(2 * 1024 * 1024) }] });
    const ret = await runScript('try { await tools.echo({}) } catch (e) { return [e.name, e.message] }', {
      callTool: big,
      limits: { memoryMaxBytes: 4 * 1024 * 1024 },
    });
    const [name, message] = JSON.parse(ret.value!) as [string, string];
    expect(name).toBe('ResultTooLarge');
    expect(message).toMatch(/^The call took effect, but its result is \d+ bytes of JSON, past the cap of 1398101/);
  });

  it('rejects a result nested past 2,000 levels with ResultTooLarge', async () => {
    let nested: unknown = 1;
    for (let i = 0; i < 2_001; i++) nested = [nested];
    const deep: ToolCaller = async () => ({ content: [], structuredContent: { nested } });
    const ret = await runScript('try { await tools.echo({}) } catch (e) { return e.name }', { callTool: deep });
    expect(ret.value).toBe('"ResultTooLarge"');
  });

  it('names calls in flight up to 10, counts the rest by tool, and counts calls never sent apart', async () => {
    // Sixteen calls reach the tool (the in-flight cap); the other four wait in the child, never sent.
    const { callTool, reached } = countedHangingTool(16);
    const script = startScript('await Promise.all(Array.from({ length: 20 }, (_, i) => tools.slow({ i })))', {
      tools: toolEntries('slow'),
      callTool,
    });
    await reached;
    script.stop('requested');
    await script.ended;
    const ret = await script.observe(0);
    expect(ret.calls.unseen.map((call) => call.args)).toEqual(Array.from({ length: 10 }, (_, i) => `{"i":${i}}`));
    expect(ret.calls.unseenMore).toEqual({ slow: 6 });
    expect(ret.calls.unsent).toEqual({ slow: 4 });
    expect(renderReturn(ret)).toMatch(/and more: slow ×6\nnever sent: slow ×4/);
  });

  it('sends a notify at once, skips one too soon after it, and shows it in the next return', async () => {
    const sent: string[] = [];
    const ret = await runScript('return [notify({ step: 1 }), notify({ step: 2 })]', { onNotify: (p) => sent.push(p) });
    expect(ret.value).toBe('[true,false]');
    expect(sent).toEqual(['{"step":1}']);
    expect(ret.notifications).toEqual(['{"step":1}']);
  });

  it('refuses notify when the server turned it off, and says so', async () => {
    const ret = await runScript('try { notify(1) } catch (e) { return e.message }', { limits: { notifyMax: 0 } });
    expect(ret.value).toMatch(/notify is off on this server/);
  });

  it("returns a value JSON can't hold as a string that says so", async () => {
    expect((await runScript('return 10n')).value).toMatch(/can't become JSON/);
    expect((await runScript('return () => 1')).value).toMatch(/can't become JSON: it is a function/);
    const cyclic = await runScript('const a = {}; a.a = a; return a');
    expect(cyclic.status).toBe('finished');
    expect(cyclic.value).toMatch(/can't become JSON/);
  });

  it('returns a string value as JSON.stringify writes it, escapes and lone surrogates included, up to the cap exactly', async () => {
    // A string's JSON is made by the engine, not the prelude (engine/ending.ts, quoteStringValue): the same text either way.
    const script = String.raw`return "line\n\"quoted\" \t \u0001 é 😀 \ud800 lone \udc00 end"`;
    const expected = 'line\n"quoted" \t \u0001 é 😀 \ud800 lone \udc00 end';
    expect((await runScript(script)).value).toBe(JSON.stringify(expected));
    expect((await runScript('String.prototype.toJSON = () => "replaced"; return "kept"')).value).toBe('"kept"');
    expect((await runScript('return new String("boxed")')).value).toBe('"boxed"');
    const atCap = await runScript('return "x".repeat(1024 * 1024 - 2)');
    expect(atCap.value).toHaveLength(1024 * 1024);
    expect((await runScript('return "x".repeat(1024 * 1024 - 1)')).value).toMatch(
      /^"\[the value is 1048577 characters of JSON, past the cap of 1048576/,
    );
  });

  it('returns a value over 1 MiB of JSON as a string that says so', async () => {
    const ret = await runScript('return "x".repeat(2 * 1024 * 1024)');
    expect(ret.value).toMatch(/past the cap of 1048576/);
  });
});
