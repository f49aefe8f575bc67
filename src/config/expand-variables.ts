import { CodemodeError } from '../support/errors.js';
import type { VariableSource } from './types.js';

/**
 * `${VAR}` and `${VAR:-default}` as in a POSIX shell: the default applies when VAR is unset or
 * empty. `${env:VAR}` (VS Code's spelling) means `${VAR}`. A `$` not followed by `{` is left alone,
 * so `$$` and `$HOME` pass through untouched.
 */
const REFERENCE = /\$\{([^}]*)\}/g;
const NAME = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/**
 * VS Code's own variables in an mcp.json (`${workspaceFolder}`, `${input:token}`, ...), which VS
 * Code expands before starting a server and codemode-mcp can't: a config copied from one is told so.
 */
const VS_CODE_VARIABLES = new Set([
  'workspaceFolder',
  'workspaceFolderBasename',
  'userHome',
  'cwd',
  'execPath',
  'pathSeparator',
  'file',
  'fileWorkspaceFolder',
  'relativeFile',
  'relativeFileDirname',
  'fileBasename',
  'fileBasenameNoExtension',
  'fileExtname',
  'fileDirname',
  'fileDirnameBasename',
  'lineNumber',
  'selectedText',
  'defaultBuildTask',
]);
const VS_CODE_PREFIXED = /^(input|config|command|workspaceFolder):/;

/** Why one string could not be expanded; the caller adds the file and path (and makes it a ConfigError). */
export class VariableError extends CodemodeError {
  override readonly name = 'VariableError';
  readonly code = 'VARIABLE_INVALID';
}

export function expandVariables(text: string, env: VariableSource): string {
  return text.replace(REFERENCE, (reference: string, body: string) => {
    if (VS_CODE_VARIABLES.has(body) || VS_CODE_PREFIXED.test(body)) {
      throw new VariableError(
        `has ${reference}, a variable VS Code expands in its own mcp.json; codemode-mcp expands only environment ` +
          'variables: write the value itself (an absolute path), or put it in an environment variable and write ${NAME}',
      );
    }
    const match = NAME.exec(body);
    if (match === null) {
      throw new VariableError(`has ${reference}, which is not a variable reference; write \${NAME} or \${NAME:-default}`);
    }
    const [, name = '', fallback] = match;
    if (fallback !== undefined && fallback.includes('${')) {
      throw new VariableError(`has ${reference}: a default can't hold another \${...}`);
    }
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      throw new VariableError(`uses \${${name}}, which is not set in the environment; set ${name} or write \${${name}:-default}`);
    }
    return value;
  });
}
