import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { parseConfig } from './parse-config.js';
import { parseJsonc } from './parse-jsonc.js';
import type { LoadedConfig, VariableSource } from './types.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads, parses and checks a config file (relative paths from the current directory); `${VAR}`
 * comes from `env`, by default `process.env`. Synchronous: it runs once, before the server starts.
 * Every problem, from a missing file to a bad setting, throws one `ConfigError`.
 */
export function loadConfigFile(path: string, env: VariableSource = process.env): LoadedConfig {
  const file = resolve(path);
  const text = readConfigText(file);
  return parseConfig(parseJson(text, file), { path: file, env });
}

function readConfigText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(file, 'no such file; check the path');
    if (code === 'EISDIR') throw new ConfigError(file, 'is a directory; give the path of the JSON file in it');
    throw new ConfigError(file, `can't be read (${code ?? (error as Error).message}); check that it exists and its permissions`);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ConfigError(file, 'is not UTF-8 text; save it as UTF-8');
  }
  // Some Windows editors start a UTF-8 file with a byte-order mark, which JSON.parse refuses.
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

function parseJson(text: string, file: string): unknown {
  if (text.trim() === '') throw new ConfigError(file, 'is empty; it should hold {"mcpServers": {...}}');
  const parsed = parseJsonc(text);
  if ('value' in parsed) return parsed.value;
  throw new ConfigError(file, `is not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`);
}
