/**
 * Every tools/call result is checked once, here, before a script sees it. Most results are a few
 * text blocks: those pass a structural check of a handful of property reads; anything else (an
 * image, an annotation, `_meta`, a malformed result) goes through the SDK's full CallToolResult
 * schema, whose issues name what is wrong. The SDK's zod parse of every result was a large share of
 * the server's busy time in a run of sequential calls (bench/ANALYSIS.md, "Figures from the code's
 * comments").
 */
import { specTypeSchemas, type CallToolResult } from '@modelcontextprotocol/client';
import { UpstreamAnswerError } from '../../support/errors.js';
import { describeInput } from '../../support/echo.js';
import { describeIssues } from '../../support/describe-issues.js';

/** The result, checked; a malformed one throws UpstreamAnswerError saying what is wrong with it. */
export function checkToolResult(result: unknown, server: string, scriptName: string): CallToolResult {
  if (isPlainTextResult(result)) return result;
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(result);
  if (checked.issues !== undefined) throw new UpstreamAnswerError(server, scriptName, describeIssues(checked.issues, result));
  const problem = topLevelProblem(checked.value);
  if (problem !== undefined) throw new UpstreamAnswerError(server, scriptName, problem);
  return checked.value;
}

/**
 * What the spec requires of a result's own fields that the SDK's schema lets pass: it takes any
 * JSON as `structuredContent` and `_meta`, where MCP says each is an object.
 */
function topLevelProblem(result: CallToolResult): string | undefined {
  for (const field of ['structuredContent', '_meta'] as const) {
    if (!(field in result)) continue;
    const value: unknown = result[field];
    if (!isObjectLike(value)) return `${field} must be an object; got ${describeInput(value)}`;
  }
  return undefined;
}

/** An object that is not an array or null (a class instance can't come from JSON). */
function isObjectLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `{content: [{type: "text", text}...], isError?, structuredContent?}` and no other key: what the
 * full schema accepts and returns unchanged (it would strip unknown keys of a block, so a block
 * with any other key is left to it).
 */
function isPlainTextResult(result: unknown): result is CallToolResult {
  if (!isPlainObject(result)) return false;
  let keys = 0;
  for (const key in result) {
    if (key !== 'content' && key !== 'isError' && key !== 'structuredContent') return false;
    keys++;
  }
  const { content, isError, structuredContent } = result;
  if (!Array.isArray(content) || keys !== 1 + Number('isError' in result) + Number('structuredContent' in result)) return false;
  if ('isError' in result && typeof isError !== 'boolean') return false;
  if ('structuredContent' in result && !isPlainObject(structuredContent)) return false;
  for (let index = 0; index < content.length; index++) {
    const block: unknown = content[index];
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    let blockKeys = 0;
    for (const _key in block) if (++blockKeys > 2) return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
