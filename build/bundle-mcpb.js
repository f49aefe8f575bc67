// npm run bundle: builds codemode-mcp.mcpb, an MCP Bundle Claude Desktop installs in one click.
// The bundle is the package as npm would ship it, its production dependencies as the lockfile
// pins them, and mcpb/manifest.template.json with the package's version and its settings
// questions' defaults and ranges filled in from the settings' specs (src/config/bundle-questions.ts,
// built into dist/ by npm run build); packed and checked by the official packer, @anthropic-ai/mcpb.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'codemode-mcp.mcpb');
const mcpb = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const { fillSettingQuestions } = await import(new URL('../dist/src/config/bundle-questions.js', import.meta.url).href);
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

const work = mkdtempSync(join(tmpdir(), 'codemode-mcpb-'));
try {
  const [packed] = JSON.parse(run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root));
  const staging = join(work, 'bundle');
  mkdirSync(staging);
  run('tar', ['-xzf', join(work, packed.filename), '-C', staging, '--strip-components=1'], work);
  cpSync(join(root, 'package-lock.json'), join(staging, 'package-lock.json'));
  run(npm, ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], staging);
  const manifest = fillSettingQuestions(JSON.parse(readFileSync(join(root, 'mcpb', 'manifest.template.json'), 'utf8')));
  delete manifest.$schema;
  manifest.version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  run(process.execPath, [mcpb, 'validate', join(staging, 'manifest.json')], staging);
  rmSync(out, { force: true });
  run(process.execPath, [mcpb, 'pack', staging, out], staging);
  process.stderr.write(`written ${out}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
