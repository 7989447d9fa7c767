/**
 * Domain errors. Each carries a stable `code` (for logs and callers) and, where a caller may act on it, `data` (what
 * the message says, as values). Messages name the field or the resource they are about. Which HTTP status a code
 * answers with is for the one error translator to say (src/http/plugins/errors.ts), not for the domain.
 */
export type DomainErrorCode =
  | 'InvalidArgument'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'NotFound'
  | 'Conflict'
  | 'PreconditionFailed'
  | 'ServiceUnavailable'
  | 'TooManyRequests'
  | 'NotImplemented';

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly data: Readonly<Record<string, unknown>>;

  constructor(code: DomainErrorCode, message: string, data: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.name = code;
    this.code = code;
    this.data = data;
  }
}

/** Codes that refuse the request itself (wrong, not allowed, not there, in conflict): the same request fails again. */
const REFUSALS: ReadonlySet<DomainErrorCode> = new Set(['InvalidArgument', 'Unauthenticated', 'PermissionDenied', 'NotFound', 'Conflict', 'PreconditionFailed', 'TooManyRequests']);

/** Whether `error` refuses the request itself, so that trying it again is pointless (jobs, imports). */
export function refusesRequest(error: unknown): error is DomainError {
  return error instanceof DomainError && REFUSALS.has(error.code);
}

/** The request is well-formed JSON but a value is wrong. Start the message with the field path. */
export class InvalidArgument extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('InvalidArgument', message, data);
  }
}

/** No usable credentials. */
export class Unauthenticated extends DomainError {
  constructor(message = 'authorization: a valid "Authorization: Bearer <token>" header is required', data?: Readonly<Record<string, unknown>>) {
    super('Unauthenticated', message, data);
  }
}

/** The caller can see the resource but lacks the permission the operation needs. */
export class PermissionDenied extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('PermissionDenied', message, data);
  }
}

/** Unknown, or not visible to the caller (existence is never leaked). */
export class NotFound extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('NotFound', message, data);
  }
}

/** The operation conflicts with the current state (duplicate, would change nothing, wrong state). */
export class Conflict extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('Conflict', message, data);
  }
}

/** The operation cannot be performed on this resource. */
export class PreconditionFailed extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('PreconditionFailed', message, data);
  }
}

/** A dependency (Redis, ...) is unreachable; retry later. */
export class ServiceUnavailable extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('ServiceUnavailable', message, data);
  }
}

/** Too many attempts of something guarded (sign-in): `data.retryAfterSeconds` says when to try again. */
export class TooManyRequests extends DomainError {
  constructor(message: string, data: Readonly<{ retryAfterSeconds: number }>) {
    super('TooManyRequests', message, data);
  }
}

/** The operation exists in the reference but this server does not offer it (the message says what to use). */
export class NotImplemented extends DomainError {
  constructor(message: string, data?: Readonly<Record<string, unknown>>) {
    super('NotImplemented', message, data);
  }
}
