/**
 * What the engine gives the prelude once, at install: its host functions (see HOST_FUNCTIONS in
 * common/seam.ts for each one's arguments) and the limits. Both are copied here into objects that
 * only the prelude's modules can name, and reach the script by no property, prototype or frame.
 */
import { HOST_FUNCTIONS, type HostFunctions, type PreludeLimits } from '../common/seam.js';
import { ErrorConstructor, blank, newError } from './intrinsics.js';

export const host: HostFunctions = blank<HostFunctions>();
export const limits: PreludeLimits = blank<PreludeLimits>();

const LIMIT_NAMES: ReadonlyArray<keyof PreludeLimits> = [
  'callsInFlightMax',
  'argsMaxBytes',
  'valueMaxChars',
  'notifyPayloadMaxChars',
  'scriptFile',
  'scriptLine1Offset',
];

/** Copies the host functions and the limits in; the objects they came on are left to the collector. */
export function takeHost(given: Record<string, unknown>, givenLimits: Record<string, unknown>): void {
  const into = host as unknown as Record<string, unknown>;
  for (let i = 0; i < HOST_FUNCTIONS.length; i++) {
    const name = HOST_FUNCTIONS[i]!;
    if (typeof given[name] !== 'function') throw newError(ErrorConstructor, `prelude: the engine gave no host function ${name}`);
    into[name] = given[name];
  }
  const intoLimits = limits as unknown as Record<string, unknown>;
  for (let i = 0; i < LIMIT_NAMES.length; i++) {
    const name = LIMIT_NAMES[i]!;
    if (givenLimits[name] === undefined) throw newError(ErrorConstructor, `prelude: the engine gave no limit ${name}`);
    intoLimits[name] = givenLimits[name];
  }
}
