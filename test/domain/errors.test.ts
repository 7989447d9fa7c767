/**
 * Domain errors are codes and data, with no HTTP in them: the one translator gives each code its status, a job's
 * failure keeps its code and data through Redis, and retrying is given up for the codes that refuse the request.
 */
import { describe, expect, it } from 'vitest';
import { Conflict, DomainError, NotFound, refusesRequest, ServiceUnavailable, type DomainErrorCode } from '../../src/domain/errors.js';
import { decodeFailure, encodeFailure, isPermanent } from '../../src/jobs/jobs.js';
import { STATUS } from '../../src/http/plugins/errors.js';

describe('domain errors', () => {
  it('carry a code and data, and no status', () => {
    const error = new Conflict('refs/heads/main: it kept moving while merging; try again', { ref: 'refs/heads/main' });
    expect(error.code).toBe('Conflict');
    expect(error.data).toEqual({ ref: 'refs/heads/main' });
    expect(new NotFound('space: no such space').data).toEqual({});
    expect('status' in error).toBe(false);
  });

  it('keep their code, message and data through a job failure', () => {
    const back = decodeFailure(encodeFailure(new Conflict('ref: moved', { ref: 'refs/heads/main' })));
    expect(back).toBeInstanceOf(DomainError);
    expect(back).toMatchObject({ code: 'Conflict', message: 'ref: moved', data: { ref: 'refs/heads/main' } });
    expect(decodeFailure(encodeFailure(new Error('disk full')))).not.toBeInstanceOf(DomainError);
  });

  it('refuse the request for the 4xx codes only: those are not retried', () => {
    const codes = Object.keys(STATUS) as DomainErrorCode[];
    for (const code of codes) {
      const error = new DomainError(code, `${code}: test`);
      expect(refusesRequest(error), code).toBe(STATUS[code] < 500);
      expect(isPermanent(error), code).toBe(STATUS[code] < 500);
    }
    expect(refusesRequest(new ServiceUnavailable('redis: unreachable'))).toBe(false);
    expect(refusesRequest(new Error('not a domain error'))).toBe(false);
  });
});
