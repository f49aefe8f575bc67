import { CodemodeError } from '../support/errors.js';
import type { VariableSource } from './types.js';

/**
 * `${VAR}` and `${VAR:-default}` as in a POSIX shell: the default applies when VAR is unset or
 * empty. `${env:VAR}` (VS Code's spelling) means `${VAR}`. A `$` not followed by `{` is left alone,
 * so `$$` and `$HOME` pass through untouched.
 */
const REFERENCE = /\$\{([^}]*)\}/g;
const NAME = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/** Why one string could not be expanded; the caller adds the file and path (and makes it a ConfigError). */
export class VariableError extends CodemodeError {
  override readonly name = 'VariableError';
  readonly code = 'VARIABLE_INVALID';
}

export function expandVariables(text: string, env: VariableSource): string {
  return text.replace(REFERENCE, (reference: string, body: string) => {
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
