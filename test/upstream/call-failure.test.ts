import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import { LoginError } from '../../src/upstream/auth/login.js';
import { SignInNeededError } from '../../src/upstream/auth/oauth-provider.js';
import { translateCallFailure } from '../../src/upstream/connection/call-failure.js';
import { UpstreamStartError } from '../../src/upstream/connection/start-failure.js';
import { CodemodeError } from '../../src/support/errors.js';
import { inMemorySpec } from './in-memory.js';

const call = { server: 'up', scriptName: 'up__t', signal: undefined, lost: undefined };

describe('translateCallFailure', () => {
  test("an aborted call fails with the caller's reason, not the SDK's timeout", () => {
    const controller = new AbortController();
    const reason = new Error('the script was stopped');
    controller.abort(reason);
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out');
    expect(translateCallFailure(timeout, { ...call, signal: controller.signal })).toBe(reason);
  });

  test('a request the transport would not send is refused: nothing was sent', () => {
    expect(translateCallFailure(new SdkError(SdkErrorCode.NotConnected, 'Not connected'), call)).toMatchObject({
      code: 'UPSTREAM_DOWN',
      message: 'UPSTREAM_DOWN: up__t was refused: upstream "up" had just gone away. Nothing was sent; it is safe to retry later.',
    });
  });

  test('a call whose session ended under it is lost, in the words of how it ended', () => {
    const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
    expect(translateCallFailure(closed, { ...call, lost: 'exited' })).toMatchObject({
      code: 'UPSTREAM_LOST',
      message: 'UPSTREAM_LOST: upstream up exited while the call to up__t was in flight; the call may have taken effect',
    });
    expect(translateCallFailure(closed, { ...call, lost: 'stopped answering' })).toMatchObject({ code: 'UPSTREAM_LOST' });
  });

  test("any other failure (the upstream's JSON-RPC error) is passed on as it came", () => {
    const error = new Error('upstream said no');
    expect(translateCallFailure(error, call)).toBe(error);
  });
});

describe('the upstream errors', () => {
  test('each is a CodemodeError with its own name and code', () => {
    const start = new UpstreamStartError(
      inMemorySpec('up'),
      new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'),
      ['npm error code E404'],
      { startTimeoutMs: 1_000 },
      undefined,
    );
    expect(start).toBeInstanceOf(CodemodeError);
    expect(start).toMatchObject({
      name: 'UpstreamStartError',
      code: 'UPSTREAM_START_FAILED',
      signInNeeded: false,
      text: 'it exited during startup; its stderr last said: "npm error code E404"',
      message: 'UPSTREAM_START_FAILED: it exited during startup; its stderr last said: "npm error code E404"',
    });
    const timedOut = new UpstreamStartError(
      inMemorySpec('up'),
      new SdkError(SdkErrorCode.RequestTimeout, 'x'),
      [],
      { startTimeoutMs: 1_000 },
      undefined,
    );
    expect(timedOut.text).toBe('it did not answer within 1 s (upstreamStartTimeoutMs)');
    expect(new SignInNeededError('expired')).toMatchObject({ name: 'SignInNeededError', code: 'SIGN_IN_NEEDED' });
    expect(new LoginError('no')).toMatchObject({ name: 'LoginError', code: 'LOGIN_FAILED' });
    expect(new LoginError('no')).toBeInstanceOf(CodemodeError);
  });
});
