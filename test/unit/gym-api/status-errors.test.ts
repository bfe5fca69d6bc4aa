import { describe, expect, it } from 'vitest';
import { AuthError, EndpointUnavailableError, InvalidResponseError } from '../../../lambdas/gym-api/errors';
import { errorForStatus } from '../../../lambdas/gym-api/status-errors';

const response = (status: number, message = 'Not Found') => ({
  status,
  headers: new Headers({ 'content-type': 'application/json' }),
  body: JSON.stringify({ Message: message }),
});
const data = {
  operation: 'classAttendance',
  secrets: ['key-1'],
  nowMs: 0,
  defaultAuthReason: 'unknown',
} as const;
const token = {
  operation: 'token',
  secrets: ['pw'],
  nowMs: 0,
  defaultAuthReason: 'credentials',
  forceAuthReason: 'credentials',
} as const;

describe('errorForStatus: endpoints missing for a club', () => {
  it('404 and a 403 that blames no credential on a data operation: EndpointUnavailableError', () => {
    const notFound = errorForStatus(response(404), data);
    expect(notFound).toBeInstanceOf(EndpointUnavailableError);
    expect(notFound).toMatchObject({ reason: 'not-found', status: 404, retryable: false });
    const forbidden = errorForStatus(response(403, 'Forbidden'), data);
    expect(forbidden).toMatchObject({ name: 'EndpointUnavailableError', reason: 'forbidden', status: 403 });
  });

  it('a 403 that names the key or token is still a credential problem', () => {
    expect(errorForStatus(response(403, 'x-api-key invalid'), data)).toBeInstanceOf(AuthError);
    expect(errorForStatus(response(403, 'token expired'), data)).toMatchObject({ reason: 'token' });
  });

  it('POST /token: 404 is a wrong base URL (unexpected status) and 403 rejects the login, as before', () => {
    expect(errorForStatus(response(404), token)).toBeInstanceOf(InvalidResponseError);
    expect(errorForStatus(response(403, 'Forbidden'), token)).toMatchObject({
      name: 'AuthError',
      reason: 'credentials',
    });
  });

  it('never quotes a secret the upstream echoes', () => {
    expect(errorForStatus(response(404, 'no route for key-1'), data).message).not.toContain('key-1');
  });
});
