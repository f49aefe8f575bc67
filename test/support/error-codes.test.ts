/**
 * The error registry (src/support/error-codes.ts) is the one list of codes: every code the server
 * writes is in it, once, and a message tells the model to retry only where the registry says a
 * retry can pass.
 */
import { describe, expect, it } from 'vitest';
import { BREACH } from '../../protocol/contract.js';
import {
  CODE_GROUPS,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeSpec,
  formatCodedMessage,
} from '../../src/support/error-codes.js';
import { FetchRefusedError, ToolRefusedError, describeError, type ToolRefusedCode } from '../../src/support/errors.js';
import { StateError } from '../../src/state/state-error.js';
import { sourceFiles } from './source-files.js';

const CODES = Object.entries(ERROR_CODES) as Array<[ErrorCode, ErrorCodeSpec]>;

/**
 * UPPER_SNAKE names in the sources that are not error codes: environment variables the server
 * reads or sets, a global of the scripts, Node's own code for a missing module, and the breaches of
 * the child's protocol (protocol/contract.ts), whose crash message says what the breach was in words.
 */
const NOT_CODES = new Set([
  'CODEMODE_HTTP_TOKEN',
  'CODEMODE_MCP_UPSTREAM_OF',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_DIR',
  'SSL_CERT_FILE',
  'PROCESSOR_ARCHITECTURE',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_METRICS_EXPORTER',
  'OTEL_TRACES_EXPORTER',
  'ALL_TOOLS',
  'ERR_MODULE_NOT_FOUND',
  ...Object.keys(BREACH),
]);

/** A name in quotes (`'TOOL_DENIED'`), or one that starts a message (`` `NAME_COLLISION: `` , `'codemode-mcp: LOG_FILE_FAILED: `). */
const CODE_LIKE = [/['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]/g, /[`'"](?:codemode-mcp: )?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+): /g];

describe('the error registry', () => {
  it('declares each code once, in a group, with what it means and whether a retry can pass', () => {
    const [registry] = sourceFiles('src/support').filter((file) => file.path.endsWith('error-codes.ts'));
    for (const [code, spec] of CODES) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/);
      expect(registry!.text.split('\n').filter((line) => line.startsWith(`  ${code}: {`))).toHaveLength(1);
      expect(Object.keys(CODE_GROUPS)).toContain(spec.group);
      expect(spec.means.length).toBeGreaterThan(10);
      expect(spec.retry === null || spec.retry.length > 0).toBe(true);
    }
  });

  it('holds every code the server writes, in src/, prelude/, engine/, protocol/ and common/', () => {
    const unregistered: string[] = [];
    for (const file of sourceFiles('src', 'prelude', 'engine', 'protocol', 'common')) {
      for (const pattern of CODE_LIKE) {
        for (const [, name] of file.text.matchAll(pattern)) {
          if (!(name! in ERROR_CODES) && !NOT_CODES.has(name!)) unregistered.push(`${file.path}: ${name}`);
        }
      }
    }
    expect(unregistered).toEqual([]);
  });

  it('adds the retry hint only to the codes where a retry can pass, and says when', () => {
    for (const [code, spec] of CODES) {
      const message = formatCodedMessage(code, 'it was refused. Nothing was sent.');
      expect(message.startsWith(`${code}: it was refused.`)).toBe(true);
      if (spec.retry === null) expect(message).not.toMatch(/retry/i);
      else expect(message).toBe(`${code}: it was refused. Nothing was sent; it is safe to retry ${spec.retry}.`);
    }
  });

  it("tells the model to retry a refused call only where it can pass: never a person's denial, a denied or unknown tool, or the fallback", () => {
    const refusals = CODES.filter(([, spec]) => spec.group === 'call').map(
      ([code]) => new ToolRefusedError(code as ToolRefusedCode, 'fs__delete_file', 'because'),
    );
    const told = refusals.filter((error) => /retry/.test(error.message)).map((error) => error.code);
    expect(told.sort()).toEqual(['APPROVAL_TIMED_OUT', 'UPSTREAM_CONNECTING', 'UPSTREAM_DOWN', 'UPSTREAM_UNAUTHORIZED']);
    expect(refusals.find((error) => error.code === 'APPROVAL_DENIED')!.message).toBe(
      'APPROVAL_DENIED: fs__delete_file was refused: because. Nothing was sent.',
    );
    expect(new ToolRefusedError('UPSTREAM_DOWN', 'gh__x', 'upstream "gh" is down').message).toBe(
      'UPSTREAM_DOWN: gh__x was refused: upstream "gh" is down. Nothing was sent; it is safe to retry later.',
    );
    expect(new FetchRefusedError('FETCH_ORIGIN', 'GET https://x.example/', 'not listed').message).not.toMatch(/retry/);
    expect(new StateError('STATE_FULL', 'nothing was written').message).not.toMatch(/retry/);
  });

  it('writes the code once at the head of a message, and keeps the text apart for a message that quotes it', () => {
    const error = new StateError('STATE_UNAVAILABLE', "the store can't be reached");
    expect(error.message).toBe(
      "STATE_UNAVAILABLE: the store can't be reached; it is safe to retry once the store can be reached again",
    );
    expect(error.text).toBe("the store can't be reached");
    expect(describeError(error)).toBe("the store can't be reached");
    expect(describeError(new Error('plain'))).toBe('plain');
  });

  it('is the only place that tells anyone a retry is safe', () => {
    const elsewhere = sourceFiles('src', 'prelude', 'engine')
      .filter((file) => !file.path.endsWith('support/error-codes.ts') && /safe to retry/.test(file.text))
      .map((file) => file.path);
    expect(elsewhere).toEqual([]);
  });
});
