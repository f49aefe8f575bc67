import { RefusedError } from '../support/errors.js';

/** Why a state operation was refused; nothing was written when a limit or a key refused it. */
export type StateErrorCode =
  /** The key is not a non-empty string within STATE_KEY_MAX_CHARS, or holds a lone surrogate. */
  | 'STATE_KEY_INVALID'
  /** The time to live is not a whole number of milliseconds, at least 1. */
  | 'STATE_TTL_INVALID'
  /** The value's JSON is past stateValueMaxBytes. */
  | 'STATE_VALUE_TOO_LARGE'
  /** The principal's keys and values would be past stateMaxBytes. */
  | 'STATE_FULL'
  /** A further key would be past stateMaxKeys. */
  | 'STATE_TOO_MANY_KEYS'
  /** The store could not be reached or read (Redis down, a file unreadable): the operation may be retried. */
  | 'STATE_UNAVAILABLE';

/**
 * A `store`/`load`/`state.*` operation refused; the message says which limit or rule, the figure,
 * and what to do. A script sees it as ToolRefused, in these words.
 */
export class StateError extends RefusedError {
  override readonly name = 'StateError';
  declare readonly code: StateErrorCode;

  constructor(code: StateErrorCode, text: string) {
    super(code, text);
  }
}
