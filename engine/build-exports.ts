/**
 * Build step: lists the functions of quickjs-wasi's module that the engine's code may call (its
 * own JavaScript and quickjs-wasi's name them), in dist/engine-exports.json; a child compiles the
 * module exporting only those (engine/module-rewrite.ts). npm run build runs this after tsc, before
 * the snapshot is built with the module so rewritten.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportsNamedIn, exportsOf } from './module-rewrite.js';
import { ENGINE_EXPORTS, type EngineExports } from './wasm.js';

/** The .js files under `directory`, as text. */
function scripts(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.js'))
    .map((name) => readFileSync(join(directory, name), 'utf8'));
}

const library = fileURLToPath(new URL('.', import.meta.resolve('quickjs-wasi')));
const engine = fileURLToPath(new URL('.', import.meta.url));
const bytes = readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm')));
const kept = exportsNamedIn(bytes, [...scripts(library), ...scripts(engine)]);
const functions = exportsOf(bytes).filter(({ kind }) => kind === 0).length;
const version = (JSON.parse(readFileSync(join(library, '..', 'package.json'), 'utf8')) as { version: string }).version;
const listed: EngineExports = { quickjsWasi: version, functions: kept };
writeFileSync(ENGINE_EXPORTS, JSON.stringify(listed));
// stderr: stdout belongs to whatever runs the build (npm pack --json, say).
process.stderr.write(`engine exports: ${kept.length} of ${functions} functions\n`);
