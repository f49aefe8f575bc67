/**
 * False positives, measured: the detectors over real tool results (server-everything's answers,
 * the filesystem server's reading of this repository: source, docs, fixtures, bench results).
 * Order ids, timestamps, versions, hashes, UUIDs, amounts and line numbers fill that corpus, and
 * none may become a token; the addresses it holds (a private 10.0.0.5 in docs) are IPs indeed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKENIZE, type TokenizeSettings } from '../../src/config/tokenize-setting.js';
import { Detectors } from '../../src/tokenize/detectors.js';
import { Tokenizer } from '../../src/tokenize/tokenizer.js';
import { customerRows } from '../fixtures/upstreams/customer-rows.mjs';
import { readCorpus, type CorpusText } from './corpus.js';

let corpus: CorpusText[] = [];
beforeAll(async () => {
  corpus = await readCorpus();
});

/** Each find over the corpus, as `LABEL value  (source)`. */
function findsOver(settings: TokenizeSettings): string[] {
  const detectors = new Detectors(settings);
  return corpus.flatMap(({ source, text }) =>
    detectors.scan(text).map((one) => `${one.label} ${String(one.value)}  (${source})`),
  );
}

describe('the detectors over real tool results', () => {
  it('read a corpus of hundreds of results, megabytes of text', () => {
    expect(corpus.length).toBeGreaterThan(500);
    expect(corpus.reduce((chars, { text }) => chars + text.length, 0)).toBeGreaterThan(2_000_000);
    expect(corpus.some(({ source }) => source.startsWith('everything get-tiny-image'))).toBe(true);
  });

  it.each([
    ['the default detectors', DEFAULT_TOKENIZE],
    ['national numbers for US', { ...DEFAULT_TOKENIZE, phoneRegion: 'US' }],
    ['national numbers for GB', { ...DEFAULT_TOKENIZE, phoneRegion: 'GB' }],
    ['national numbers for DE', { ...DEFAULT_TOKENIZE, phoneRegion: 'DE' }],
  ])('find nothing but IP addresses with %s', (_name, settings) => {
    expect(findsOver(settings).filter((find) => !find.startsWith('IP '))).toEqual([]);
  });
});

describe('the detectors over customer rows', () => {
  it('tokenize every email and phone and every configured field, and leave every other column as it was', async () => {
    const rows = customerRows(500);
    const scope = new Tokenizer({ ...DEFAULT_TOKENIZE, fields: ['name', 'address'], phoneRegion: 'US' }).forScope('s');
    const tokenized = (await scope.tokenizeValue(rows)) as typeof rows;
    tokenized.forEach((row, i) => {
      const { email, phone, name, address, ...rest } = rows[i]!;
      expect(row).toEqual({
        ...rest,
        email: expect.stringMatching(/^\[EMAIL_\d+\]$/),
        phone: expect.stringMatching(/^\[PHONE_\d+\]$/),
        name: expect.stringMatching(/^\[NAME_\d+\]$/),
        address: expect.stringMatching(/^\[ADDRESS_\d+\]$/),
      });
      expect([email, phone, name, address].some((value) => JSON.stringify(row).includes(value))).toBe(false);
    });
    const text = await scope.tokenizeText(JSON.stringify(rows));
    expect(JSON.parse(text)).toEqual(tokenized);
  });
});
