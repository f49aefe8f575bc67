// typescript-eslint's recommended type-checked rules over the TypeScript, the plain recommended
// rules over the JavaScript (bin/, build/, fixtures). `npm run lint` runs it with prettier and knip.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * A world's import rule: `folders` are the project folders it may not reach (by a relative path,
 * however deep), `packages` the packages it may not import.
 */
function worldRule(files, world, folders, packages) {
  const message = `${world}: see docs/architecture.md for what it may import`;
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: `^(\\.\\./)+(${folders.join('|')})/`, message },
            { group: packages, message },
          ],
        },
      ],
    },
  };
}

/** The MCP SDK's packages, for the layers below the MCP surface that may not import them. */
const MCP_SDK = ['@modelcontextprotocol/*'];

/** The server's layers, top to bottom (docs/architecture.md, "The layers of the server"). */
const SRC_FOLDERS = [
  'boot',
  'cli',
  'commands',
  'mcp',
  'http',
  'stdio',
  'scripts',
  'upstream',
  'skills',
  'approvals',
  'fetch',
  'script-host',
  'telemetry',
  'tokenize',
  'state',
  'typecheck',
  'catalog',
  'json-rpc',
  'config',
  'support',
];

/**
 * A layer of src/: the files of `folder` may import, inside src/, only the folders in `below`
 * (and their own); the world rule for src/ (no engine/, prelude/, quickjs-wasi) holds as well, and
 * `packages` names what else the layer may not import.
 */
function layerRule(folder, below, packages = []) {
  const above = SRC_FOLDERS.filter((name) => name !== folder && !below.includes(name));
  // src/main.ts is the layer under src/boot/ (which loads it and imports its type) and over the rest.
  const forbidden = folder === 'boot' ? above : [...above, 'main\\.js'];
  const world = worldRule(
    [`src/${folder}/**/*.ts`],
    'src/ runs in the server',
    ['engine', 'prelude'],
    ['quickjs-wasi', ...packages],
  );
  const patterns = world.rules['no-restricted-imports'][1].patterns;
  patterns.push({
    regex: `^(\\.\\./)+(${forbidden.join('|')})(/|$)`,
    message: `src/${folder}/ may import only ${below.length === 0 ? 'nothing else of src/' : below.map((name) => `src/${name}/`).join(', ')}: see docs/architecture.md for the layers`,
  });
  return world;
}

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'examples/scripts/',
      'test/fixtures/skills/',
      'test/**/golden/',
      'codemode-mcp.mcpb',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      // The test config holds src/, engine/, protocol/, common/, bench/ and test/; the prelude has its own.
      parserOptions: { project: ['./tsconfig.test.json', './prelude/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // Destructuring a field out to drop it (`{ $schema: _dialect, ...rest }`) is how a copy leaves one out.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A closure made before the one assignment reads it later (a session's handlers, a listener's).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Passing on what was caught, or an AbortSignal's reason, as it is: neither is ours to wrap.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  // The three worlds and what they share (docs/architecture.md): an import across them that the
  // table there does not allow fails here, so no review has to catch it.
  worldRule(['engine/**/*.ts'], "engine/ runs in a script's child", ['src', 'prelude'], ['@modelcontextprotocol/*']),
  worldRule(['prelude/**/*.ts'], 'prelude/ runs inside QuickJS', ['src', 'engine'], ['node:*', 'quickjs-wasi']),
  worldRule(
    ['protocol/**/*.ts'],
    'protocol/ is shared by the server and the child',
    ['src', 'engine', 'prelude'],
    ['@modelcontextprotocol/*'],
  ),
  worldRule(
    ['common/**/*.ts'],
    'common/ is shared by all three worlds',
    ['src', 'engine', 'prelude', 'protocol'],
    ['node:*', 'quickjs-wasi', '@modelcontextprotocol/*'],
  ),
  worldRule(['src/**/*.ts'], 'src/ runs in the server', ['engine', 'prelude'], ['quickjs-wasi']),
  // The layers inside src/: each folder imports only the folders below it, never one above or beside.
  layerRule('boot', ['support']),
  layerRule('cli', ['config', 'support']),
  // Commands are the top of src/: every folder below them.
  layerRule(
    'commands',
    SRC_FOLDERS.filter((name) => name !== 'boot' && name !== 'commands'),
  ),
  layerRule('mcp', [
    'scripts',
    'upstream',
    'skills',
    'approvals',
    'fetch',
    'script-host',
    'telemetry',
    'tokenize',
    'state',
    'typecheck',
    'catalog',
    'json-rpc',
    'config',
    'support',
  ]),
  layerRule('http', ['mcp', 'scripts', 'upstream', 'telemetry', 'state', 'catalog', 'json-rpc', 'config', 'support']),
  layerRule('stdio', ['json-rpc', 'config', 'support']),
  // Below the MCP surface, scripts are run and answered in the server's own terms: only src/mcp/
  // (and what carries it) speaks MCP to the client, and the scripts layer never imports the SDK.
  layerRule(
    'scripts',
    ['approvals', 'fetch', 'script-host', 'telemetry', 'state', 'typecheck', 'catalog', 'config', 'support'],
    MCP_SDK,
  ),
  layerRule('upstream', ['telemetry', 'catalog', 'json-rpc', 'config', 'support']),
  layerRule('approvals', ['telemetry', 'config', 'support']),
  // fetch/ implements the scripts' fetch() over script-host/apis.ts's types, as state/ and skills/ do theirs.
  layerRule('fetch', ['script-host', 'telemetry', 'config', 'support'], MCP_SDK),
  layerRule('script-host', ['catalog', 'config', 'support'], MCP_SDK),
  layerRule('telemetry', ['config', 'support']),
  // tokenize/ keeps its vault in the state store when one is shared (src/tokenize/stored-vault.ts).
  layerRule('tokenize', ['state', 'config', 'support']),
  // state/ and skills/ implement their host APIs over script-host/apis.ts's types.
  layerRule('state', ['script-host', 'config', 'support']),
  layerRule('skills', ['script-host', 'config', 'support']),
  layerRule('typecheck', ['catalog', 'config', 'support']),
  layerRule('catalog', ['config', 'support']),
  layerRule('json-rpc', ['support']),
  layerRule('config', ['support']),
  layerRule('support', []),
  {
    // No import cycle anywhere in the TypeScript, type-only imports included.
    files: ['src/**/*.ts', 'engine/**/*.ts', 'prelude/**/*.ts', 'protocol/**/*.ts', 'common/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Each imported file is parsed as TypeScript, and resolved as tsc does (`./x.js` is `./x.ts`).
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.test.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The log's `codemode-mcp: ` is written once, by the Logger (src/support/log.ts), which adds the
    // scope and takes the level: a line that types it by hand goes around both.
    files: ['src/**/*.ts'],
    ignores: ['src/support/log.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Literal[value=/^codemode-mcp: /]', 'TemplateElement[value.raw=/^codemode-mcp: /]'].map((selector) => ({
          selector,
          message:
            "Write the server's own lines through a Logger (src/support/log.ts: Logger.of(log).warn(text), .child(scope)), which adds `codemode-mcp: `; prefixLine(text) where there is no log.",
        })),
      ],
    },
  },
  {
    // Node 20 holds AbortSignal.timeout's signal weakly: inside AbortSignal.any it can be collected
    // and never abort. src/support/timeout-signal.ts's is held by its timer.
    files: ['src/**/*.ts', 'engine/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'AbortSignal',
          property: 'timeout',
          message: 'Use timeoutSignal (src/support/timeout-signal.ts): Node 20 may collect this one before it fires.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringMatching, ...) are typed any, and a
      // test reads answers of a shape it is about to assert: the assertion is the type check.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      // Handlers and fakes are async to match the interface they stand in for, awaiting nothing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['prelude/intrinsics.ts'],
    rules: {
      // The dialect's point: every built-in method is captured unbound here and uncurried, before
      // any script runs, so a script can't replace what the prelude calls (prelude/intrinsics.ts,
      // test/prelude/dialect.test.ts).
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Not TypeScript, or in no tsconfig: the rules that need no types.
    files: ['**/*.js', '**/*.mjs', 'vitest.config.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
);
