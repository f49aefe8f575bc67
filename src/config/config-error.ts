import { CodemodeError } from '../support/errors.js';

/** Where in a config file a value sits, as the user would write it: `mcpServers.github.args[2]`. */
export type ConfigPath = readonly (string | number)[];

/**
 * The one error an unusable config file produces. Its message names the file, the path inside it,
 * what is wrong and what to do:
 * `CONFIG_INVALID: /home/u/servers.json: mcpServers.github.command must be a string (got number)`.
 */
export class ConfigError extends CodemodeError {
  override readonly name = 'ConfigError';
  /** The file as the user named it, resolved; null when the config did not come from a file. */
  readonly file: string | null;
  /** The message after the file: the path inside it and what is wrong. */
  readonly detail: string;

  constructor(file: string | null, detail: string) {
    super('CONFIG_INVALID', `${file ?? '(config)'}: ${detail}`);
    this.file = file;
    this.detail = detail;
  }
}
