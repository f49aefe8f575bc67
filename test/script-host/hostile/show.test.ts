/**
 * Hostile scripts playing with show(): blocks that change as they are read, that throw, that are
 * huge or many, and things that are no block at all. Each gets a TypeError or RangeError it can
 * catch, or shows exactly what its JSON said; never a crash, never a breach, never the prelude's
 * objects.
 */
import { describe, expect, it } from 'vitest';
import { checkNothingLeftBehind } from './nothing-left-behind.js';
import { runScript } from '../../support/scripts.js';

checkNothingLeftBehind();

/** Runs `attempt` (an expression) in the script; its error's name and message, or "shown". */
async function outcomeOf(
  attempt: string,
  limits: { showMaxBytes?: number; memoryMaxBytes?: number } = {},
): Promise<{ outcome: unknown; shown: unknown[] }> {
  const ret = await runScript(`try { ${attempt}; return "shown" } catch (e) { return [e.name, e.message] }`, { limits });
  expect(ret.status, ret.error).toBe('finished');
  return { outcome: JSON.parse(ret.value!), shown: [...ret.shown.blocks] };
}

describe('a hostile script calling show()', () => {
  it('a getter that answers differently each time it is read: the block is what its JSON said, read once', async () => {
    const { outcome, shown } = await outcomeOf(
      'let reads = 0; show({ get type() { return reads++ === 0 ? "text" : "image" }, text: "once" })',
    );
    expect(outcome).toBe('shown');
    expect(shown).toEqual([{ type: 'text', text: 'once' }]);
  });

  it('a toJSON that swaps in another block: the other block is shown, as JSON would have it', async () => {
    const { shown } = await outcomeOf('show({ type: "image", toJSON() { return { type: "text", text: "swapped" } } })');
    expect(shown).toEqual([{ type: 'text', text: 'swapped' }]);
  });

  it("a toJSON, getter or Proxy trap that throws: a TypeError saying the block can't become JSON", async () => {
    for (const attempt of [
      'show({ toJSON() { throw new Error("nope") } })',
      'show({ type: "text", get text() { throw new Error("nope") } })',
      'show(new Proxy({}, { ownKeys() { throw new Error("nope") } }))',
      'show({ type: "text", text: 5n })',
    ]) {
      const { outcome, shown } = await outcomeOf(attempt);
      expect(outcome, attempt).toEqual(['TypeError', expect.stringMatching(/^show\(x\): x can't become JSON: /)]);
      expect(shown).toEqual([]);
    }
  });

  it('a Proxy that claims fields it lacks, and getters on Object.prototype for fields a block lacks: only own JSON fields count', async () => {
    const { outcome } = await outcomeOf(
      'Object.defineProperty(Object.prototype, "data", { get() { return "AAAA" }, configurable: true }); ' +
        'Object.prototype.mimeType = "image/png"; show({ type: "image" })',
    );
    expect(outcome).toEqual(['TypeError', expect.stringMatching(/^show\(x\): x\.data must be a string/)]);
    const proxied = await outcomeOf(
      'show(new Proxy({ type: "text", text: "real" }, { get(target, key) { return key === "text" ? "lie" : target[key] } }))',
    );
    // JSON.stringify reads through the trap: what is shown is what the JSON said, once.
    expect(proxied.shown).toEqual([{ type: 'text', text: 'lie' }]);
  });

  it('extra fields, annotations and _meta are left out: only the fields MCP names for the block type go to the answer', async () => {
    const { shown } = await outcomeOf(
      'show({ type: "text", text: "t", annotations: { audience: ["user"] }, _meta: { x: 1 }, extra: "x".repeat(100) })',
    );
    expect(shown).toEqual([{ type: 'text', text: 't' }]);
  });

  it('things that are no block get a TypeError that says what show() takes', async () => {
    for (const [attempt, why] of [
      ['show(5)', /x must be a content block or a tool result .*neither type nor content/],
      ['show("text")', /neither type nor content/],
      ['show(undefined)', /it became nothing as JSON/],
      ['show(() => 1)', /it became nothing as JSON/],
      ['show([{ type: "text", text: "a" }])', /it is a list/],
      [
        'show({ type: "video", data: "AAAA" })',
        /x\.type must be "text", "image", "audio", "resource" or "resource_link"; got "video"/,
      ],
      ['show({ type: "image", mimeType: "image/png" })', /x\.data must be a string/],
      ['show({ type: "image", data: 5, mimeType: "image/png" })', /x\.data must be a string/],
      [
        'show({ type: "resource", resource: { uri: "a:b", text: "t", blob: "AAAA" } })',
        /x\.resource must have one of text and blob/,
      ],
      ['show({ type: "resource", resource: "a:b" })', /x\.resource must be an object/],
      ['show({ content: "not a list" })', /its content is not a list of blocks/],
      ['show({ content: [{ type: "text", text: "ok" }, null] })', /x\.content\[1\] is not a content block/],
      ['show({ type: "toString" })', /x\.type must be/],
      ['show({ type: "__proto__" })', /x\.type must be/],
    ] as const) {
      const { outcome, shown } = await outcomeOf(attempt);
      expect(outcome, attempt).toEqual(['TypeError', expect.stringMatching(why)]);
      expect(shown).toEqual([]);
    }
  });

  it('a huge block, and more blocks than one show takes: a catchable error, nothing shown, and the script goes on', async () => {
    const huge = await outcomeOf('show({ type: "image", data: "A".repeat(17 * 1024 * 1024), mimeType: "image/png" })', {
      showMaxBytes: 16 * 1024 * 1024,
      memoryMaxBytes: 128 * 1024 * 1024,
    });
    expect(huge.outcome).toEqual([
      'Error',
      expect.stringMatching(/^show\(x\): the blocks are \d+ bytes of JSON, past the 16777216 an answer may carry/),
    ]);
    const many = await outcomeOf('show({ content: Array.from({ length: 101 }, (_, i) => ({ type: "text", text: String(i) })) })');
    expect(many.outcome).toEqual(['RangeError', 'show(x): x.content has 101 blocks, past the 100 one show() may take']);
    expect([...huge.shown, ...many.shown]).toEqual([]);
  });

  it('many shows past the per-answer cap: the first fit, the rest are counted, and the answer says so', async () => {
    const ret = await runScript('for (let i = 0; i < 500; i++) show({ type: "text", text: "block " + i }); return "done"');
    expect(ret.status).toBe('finished');
    expect(ret.shown.blocks).toHaveLength(100);
    expect(ret.shown.leftOut.blocks).toBe(400);
  });

  it('a script that replaces JSON.stringify, Array.isArray and Object.hasOwn still gets its blocks checked by the originals', async () => {
    const { outcome, shown } = await outcomeOf(
      'JSON.stringify = () => "[{\\"type\\":\\"image\\",\\"data\\":\\"!!\\",\\"mimeType\\":\\"x\\"}]"; Array.isArray = () => true; Object.hasOwn = () => true; ' +
        'show({ type: "text", text: "honest" })',
    );
    expect(outcome).toBe('shown');
    expect(shown).toEqual([{ type: 'text', text: 'honest' }]);
  });
});
