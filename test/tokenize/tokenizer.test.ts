import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKENIZE, type TokenizeSettings } from '../../src/config/tokenize-setting.js';
import { Tokenizer } from '../../src/tokenize/tokenizer.js';
import { MemoryTokenVault } from '../../src/tokenize/token-vault.js';
import { describeTokens } from '../../src/tokenize/tokens-note.js';
import { describeUnknownTokens } from '../../src/tokenize/unknown-tokens.js';

const settings = (over: Partial<TokenizeSettings> = {}): TokenizeSettings => ({ ...DEFAULT_TOKENIZE, ...over });

async function tokenized(text: string, over: Partial<TokenizeSettings> = {}): Promise<string> {
  return new Tokenizer(settings(over)).forScope('s').tokenizeText(text);
}

describe('the detectors', () => {
  it.each([
    ['Write to ada.lovelace+notes@example.co.uk today.', 'Write to [EMAIL_1] today.'],
    ['Call +1 415-555-0143 or +44 20 7946 0958.', 'Call [PHONE_1] or [PHONE_2].'],
    ['Call +44 (0)20 7946 0958 or +33 1 42 68 53 00', 'Call [PHONE_1] or [PHONE_2]'],
    ['Card 4111 1111 1111 1111, amex 3782-822463-10005', 'Card [CARD_1], amex [CARD_2]'],
    ['IBAN DE89 3704 0044 0532 0130 00 and GB82WEST12345698765432.', 'IBAN [IBAN_1] and [IBAN_2].'],
    ['from 203.0.113.7 and 2001:db8::8a2e:370:7334 today', 'from [IP_1] and [IP_2] today'],
  ])('finds what %j holds', async (text, expected) => {
    expect(await tokenized(text)).toBe(expected);
  });

  it.each([
    'order ORD-2026-100001 of 2026-01-21T22:22:12.646Z, updated 1769105681613',
    'v1.2.3, version 2026.8.31, node 20.19.43, line 1234, col 56',
    'uuid 123e4567-e89b-12d3-a456-426614174000, sha da39a3ee5e6b4b0d3255bfef95601890afd80709',
    'amount $1,234,567.89, +12.5%, +1234 lines, -42 lines, 12:30:45, 10:22',
    'invoice 2026048147, card-like 4111 1111 1111 1112 (no Luhn), 1234567890123456',
    'package @modelcontextprotocol/server@2.4.0, std::vector<int>, ::1, a::b',
    'IBAN-like DE89 3704 0044 0532 0130 01 (bad check digits), 999.1.1.1, 1.2.3.4.5',
  ])('leaves %j alone', async (text) => {
    expect(await tokenized(text)).toBe(text);
  });

  it('finds national numbers only for the configured region, and bare digits only as a value of their own', async () => {
    const text = 'Call (415) 555-0143 or 415.555.0143; id 4155550143; {"phone": "4155550143"}';
    expect(await tokenized(text)).toBe(text);
    expect(await tokenized(text, { phoneRegion: 'US' })).toBe(
      'Call [PHONE_1] or [PHONE_2]; id 4155550143; {"phone": "[PHONE_3]"}',
    );
  });

  // Regression: a national format (DE) read 169.254.169.254 as a phone number, ahead of the ip detector.
  it.each(['US', 'GB', 'DE', 'FR'])(
    'reads a dotted quad as an IP address, never a phone number, with phoneRegion %s',
    async (region) => {
      const text = 'metadata at 169.254.169.254, router 192.168.100.200';
      expect(await tokenized(text, { phoneRegion: region })).toBe('metadata at [IP_1], router [IP_2]');
      expect(await tokenized(text, { phoneRegion: region, detectors: ['phone'] })).toBe(text);
    },
  );

  it('finds a number inside a run with a date before it or digits after it', async () => {
    expect(await tokenized('at 2026-01-21 415-555-0143', { phoneRegion: 'US' })).toBe('at 2026-01-21 [PHONE_1]');
    expect(await tokenized('+1 415 555 0143 2024')).toBe('[PHONE_1] 2024');
  });

  it('runs only the detectors named', async () => {
    expect(await tokenized('ada@example.com +1 415-555-0143', { detectors: ['phone'] })).toBe('ada@example.com [PHONE_1]');
  });

  it('takes each configured pattern as a secret, and never matches inside a token', async () => {
    const text = 'key ACME-123456 and ACME-654321; [EMAIL_1] stays';
    expect(await tokenized(text, { patterns: ['ACME-\\d{6}', '\\d'] })).toBe('key [SECRET_1] and [SECRET_2]; [EMAIL_1] stays');
  });
});

describe('configured fields', () => {
  it('tokenizes a field whole in a structured value, in any case, everything under it included', async () => {
    const scope = new Tokenizer(settings({ fields: ['name', 'address'] })).forScope('s');
    const value = { Name: 'Ada Lovelace', address: { street: '12 Elm St', zip: 75001 }, status: 'paid', amount: 12.5 };
    expect(await scope.tokenizeValue(value)).toEqual({
      Name: '[NAME_1]',
      address: { street: '[ADDRESS_1]', zip: '[ADDRESS_2]' },
      status: 'paid',
      amount: 12.5,
    });
  });

  it('tokenizes a field in JSON text, a number in quotes, and in JSON text inside a JSON string', async () => {
    const scope = new Tokenizer(settings({ fields: ['name', 'phone'] })).forScope('s');
    expect(await scope.tokenizeText('[{"name": "Ada \\"A\\" L", "phone":4155550143, "id": 7}]')).toBe(
      '[{"name": "[NAME_1]", "phone":"[PHONE_1]", "id": 7}]',
    );
    const inner = JSON.stringify(JSON.stringify({ name: 'Ada "A" L', phone: 4155550143 }));
    expect(await scope.tokenizeText(`value: ${inner}`)).toBe(`value: "{\\"name\\":\\"[NAME_1]\\",\\"phone\\":\\"[PHONE_1]\\"}"`);
    expect((await scope.restoreValue({ n: '[NAME_1]', p: '[PHONE_1]' })).value).toEqual({ n: 'Ada "A" L', p: 4155550143 });
  });

  it('tokenizes everything under a field in JSON text as in the structured value, keys left to the detectors', async () => {
    const value = [
      { id: 7, address: { street: '12 Elm St', zip: 75001, lines: ['Flat 2', { note: 'ring twice' }] }, status: 'paid' },
    ];
    const structured = await new Tokenizer(settings({ fields: ['address'] })).forScope('s').tokenizeValue(value);
    const text = await new Tokenizer(settings({ fields: ['address'] }))
      .forScope('s')
      .tokenizeText(JSON.stringify(value, null, 2));
    expect(JSON.parse(text)).toEqual(structured);
    expect(structured).toEqual([
      {
        id: 7,
        address: { street: '[ADDRESS_1]', zip: '[ADDRESS_2]', lines: ['[ADDRESS_3]', { note: '[ADDRESS_4]' }] },
        status: 'paid',
      },
    ]);
  });

  it('leaves a field whose value is a token already as it is, in a value and in JSON text', async () => {
    const scope = new Tokenizer(settings({ fields: ['name'] })).forScope('s');
    expect(await scope.tokenizeValue({ name: 'Ada' })).toEqual({ name: '[NAME_1]' });
    expect(await scope.tokenizeValue({ name: '[NAME_1]', other: { name: '[NAME_1]' } })).toEqual({
      name: '[NAME_1]',
      other: { name: '[NAME_1]' },
    });
    expect(await scope.tokenizeText('{"name": "[NAME_1]"}')).toBe('{"name": "[NAME_1]"}');
  });
});

describe('tokens', () => {
  it('are typed, numbered per label, and the same for the same value for the rest of the scope', async () => {
    const scope = new Tokenizer(settings()).forScope('s');
    expect(await scope.tokenizeText('a@x.org b@x.org +1 415-555-0143 a@x.org')).toBe('[EMAIL_1] [EMAIL_2] [PHONE_1] [EMAIL_1]');
    expect(await scope.tokenizeValue({ to: ['b@x.org', 'c@x.org'] })).toEqual({ to: ['[EMAIL_2]', '[EMAIL_3]'] });
  });

  it('scans object keys, and keeps a __proto__ key a plain key', async () => {
    const scope = new Tokenizer(settings()).forScope('s');
    const value = JSON.parse('{"ada@x.org": 1, "__proto__": {"b": "b@x.org"}}') as unknown;
    const out = (await scope.tokenizeValue(value)) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['[EMAIL_1]', '__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"[EMAIL_1]":1,"__proto__":{"b":"[EMAIL_2]"}}');
  });

  it('leaves the value itself when there is nothing to replace, and shares the parts that have nothing', async () => {
    const scope = new Tokenizer(settings()).forScope('s');
    const value = { rows: [{ id: 1 }, { email: 'a@x.org' }], meta: { count: 2 } };
    expect(await scope.tokenizeValue(value.meta)).toBe(value.meta);
    const out = (await scope.tokenizeValue(value)) as typeof value;
    expect(out.meta).toBe(value.meta);
    expect(out.rows[0]).toBe(value.rows[0]);
    expect(out.rows[1]).toEqual({ email: '[EMAIL_1]' });
  });

  it('scans a pattern that runs across the strings of a value as each string alone', async () => {
    const scope = new Tokenizer(settings({ patterns: ['k\\s+\\d+'] })).forScope('s');
    expect(await scope.tokenizeValue(['a k', '1 b', 'k 2'])).toEqual(['a k', '1 b', '[SECRET_1]']);
  });
});

describe('restoring', () => {
  it('puts a value back wherever its token stands, and a whole-string token back as the value it was', async () => {
    const scope = new Tokenizer(settings({ fields: ['name', 'zip'] })).forScope('s');
    await scope.tokenizeValue({ name: 'Ada Lovelace', email: 'ada@x.org', zip: 75001 });
    expect(await scope.restoreText('Dear [NAME_1], we wrote to [EMAIL_1].')).toEqual({
      value: 'Dear Ada Lovelace, we wrote to ada@x.org.',
      unknown: [],
    });
    expect(await scope.restoreValue({ to: '[EMAIL_1]', zip: '[ZIP_1]', '[EMAIL_1]': 'key' })).toEqual({
      value: { to: 'ada@x.org', zip: 75001, 'ada@x.org': 'key' },
      unknown: [],
    });
  });

  it('leaves an unknown token literal and reports it once, and ignores brackets that are no token of ours', async () => {
    const scope = new Tokenizer(settings()).forScope('s');
    await scope.tokenizeText('ada@x.org');
    const restored = await scope.restoreText('[EMAIL_1] [EMAIL_7] [EMAIL_7] [STEP_1] [EMAIL_0]');
    expect(restored).toEqual({ value: 'ada@x.org [EMAIL_7] [EMAIL_7] [STEP_1] [EMAIL_0]', unknown: ['[EMAIL_7]'] });
    expect(describeUnknownTokens(restored.unknown)).toBe(
      '1 token was not restored (unknown here, or expired): [EMAIL_7]; passed on as written.',
    );
    expect(describeUnknownTokens([])).toBeNull();
    const many = Array.from({ length: 12 }, (_, i) => `[PHONE_${i + 1}]`);
    expect(describeUnknownTokens(many)).toBe(
      `12 tokens were not restored (unknown here, or expired): ${many.slice(0, 10).join(', ')} and 2 more; passed on as written.`,
    );
  });

  it("restores nothing of another scope's tokens", async () => {
    const tokenizer = new Tokenizer(settings());
    expect(await tokenizer.forScope('alice').tokenizeText('ada@x.org')).toBe('[EMAIL_1]');
    expect(await tokenizer.forScope('bob').restoreText('[EMAIL_1]')).toEqual({ value: '[EMAIL_1]', unknown: ['[EMAIL_1]'] });
    expect(await tokenizer.forScope('bob').tokenizeText('bob@x.org')).toBe('[EMAIL_1]');
    expect((await tokenizer.forScope('alice').restoreText('[EMAIL_1]')).value).toBe('ada@x.org');
  });

  it('writes a value into code as a string literal holds it, whatever quotes the value has', async () => {
    const scope = new Tokenizer(settings({ fields: ['name'] })).forScope('s');
    await scope.tokenizeValue({ name: `O'Brien "\`\${x}\`" \\ \n` });
    const { value: code } = await scope.restoreCode('return ["[NAME_1]", \'[NAME_1]\', `[NAME_1]`]');
    expect(runInNewContext(`(() => { ${code} })()`)).toEqual([
      `O'Brien "\`\${x}\`" \\ \n`,
      `O'Brien "\`\${x}\`" \\ \n`,
      `O'Brien "\`\${x}\`" \\ \n`,
    ]);
  });

  it('restores the arguments of a call to an upstream that restore names, and tokenizes those of any other', async () => {
    const tokenizer = new Tokenizer(settings({ restore: ['crm', 'mail*'] }));
    const scope = tokenizer.forScope('s');
    await scope.tokenizeText('ada@x.org');
    const args = { to: '[EMAIL_1]', cc: 'bob@x.org' };
    expect(await scope.argumentsFor('crm', args)).toEqual({ value: { to: 'ada@x.org', cc: 'bob@x.org' }, unknown: [] });
    expect((await scope.argumentsFor('mailer', args)).value).toEqual({ to: 'ada@x.org', cc: 'bob@x.org' });
    expect(await scope.argumentsFor('files', { to: 'ada@x.org', cc: 'bob@x.org', also: '[EMAIL_1]' })).toEqual({
      value: { to: '[EMAIL_1]', cc: '[EMAIL_2]', also: '[EMAIL_1]' },
      unknown: [],
    });
    expect(new Tokenizer(settings({ restore: [] })).restoresTo('crm')).toBe(false);
    expect(new Tokenizer(settings()).restoresTo('anything')).toBe(true);
  });
});

describe('what the model is told', () => {
  it('names the token kinds these settings give, in one line', () => {
    const tokenizer = new Tokenizer(settings({ detectors: ['email', 'phone'], fields: ['name'] }));
    expect(describeTokens(tokenizer.labels)).toBe(
      'Personal data reaches you as tokens ([EMAIL_1], [PHONE_1], [NAME_1]): write one as it is in a string and tools receive the real value; the same value keeps its token.',
    );
  });
});

describe('the vault', () => {
  it('forgets a token its time to live after its last use, and never numbers a later value the same', async () => {
    let now = 0;
    const limits = { ttlMs: 1_000, maxValues: 100 };
    const tokenizer = new Tokenizer(settings(limits), new MemoryTokenVault(limits, () => now));
    const scope = tokenizer.forScope('s');
    expect(await scope.tokenizeText('ada@x.org')).toBe('[EMAIL_1]');
    now = 900;
    expect((await scope.restoreText('[EMAIL_1]')).value).toBe('ada@x.org');
    now = 1_800;
    expect((await scope.restoreText('[EMAIL_1]')).value).toBe('ada@x.org');
    now = 2_801;
    expect(await scope.restoreText('[EMAIL_1]')).toEqual({ value: '[EMAIL_1]', unknown: ['[EMAIL_1]'] });
    expect(await scope.tokenizeText('bob@x.org ada@x.org')).toBe('[EMAIL_2] [EMAIL_3]');
  });

  it('forgets the least recently used value past its bound', async () => {
    const limits = { ttlMs: 60_000, maxValues: 2 };
    const scope = new Tokenizer(settings(limits)).forScope('s');
    expect(await scope.tokenizeText('a@x.org b@x.org')).toBe('[EMAIL_1] [EMAIL_2]');
    expect(await scope.tokenizeText('a@x.org c@x.org')).toBe('[EMAIL_1] [EMAIL_3]');
    expect((await scope.restoreText('[EMAIL_1] [EMAIL_2] [EMAIL_3]')).unknown).toEqual(['[EMAIL_2]']);
  });

  it('forgets a whole scope when told', async () => {
    const tokenizer = new Tokenizer(settings());
    await tokenizer.forScope('s').tokenizeText('ada@x.org');
    await tokenizer.forget('s');
    expect((await tokenizer.forScope('s').restoreText('[EMAIL_1]')).unknown).toEqual(['[EMAIL_1]']);
  });
});
