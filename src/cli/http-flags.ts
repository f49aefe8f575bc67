/** The HTTP mode's flags, read into HttpOptions and checked (src/config/http-options.ts). */
import { HTTP_TOKEN_ENV, checkHttpOptions, parseHttpAddress, type HttpOptions } from '../config/http-options.js';
import type { VariableSource } from '../config/types.js';
import type { RawHttpArgs } from './program.js';

/** Undefined without --http; the options, or what is wrong with them. */
export function readHttpFlags(raw: RawHttpArgs, env: VariableSource): HttpOptions | { error: string } | undefined {
  if (raw.listen === undefined) {
    const stray = (['token', 'allowedHosts', 'instanceId', 'publicHealth'] as const).find((key) => raw[key] !== undefined);
    if (stray === undefined) return undefined;
    const flag = {
      token: '--http-token',
      allowedHosts: '--http-allowed-hosts',
      instanceId: '--instance-id',
      publicHealth: '--http-public-health',
    }[stray];
    return { error: `${flag} applies only with --http [host:]port, which serves MCP over HTTP instead of stdio` };
  }
  const address = parseHttpAddress(raw.listen);
  if ('error' in address) return address;
  const fromEnv = env[HTTP_TOKEN_ENV];
  const token = raw.token ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  const options: HttpOptions = {
    ...address,
    token,
    allowedHosts: (raw.allowedHosts ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    instanceId: raw.instanceId,
    publicHealth: raw.publicHealth === true,
  };
  const problem = checkHttpOptions(options);
  return problem === undefined ? options : { error: problem };
}
