/**
 * Domain errors. Each carries a stable `code` (for logs and callers) and the HTTP status the one error handler
 * answers with (src/http/plugins/errors.ts). Messages name the field or the resource they are about.
 */
export type DomainErrorCode =
  | 'InvalidArgument'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'NotFound'
  | 'Conflict'
  | 'PreconditionFailed'
  | 'ServiceUnavailable'
  | 'NotImplemented';

const STATUS: Record<DomainErrorCode, number> = {
  InvalidArgument: 400,
  Unauthenticated: 401,
  PermissionDenied: 403,
  NotFound: 404,
  Conflict: 409,
  PreconditionFailed: 412,
  ServiceUnavailable: 503,
  NotImplemented: 501,
};

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly status: number;

  constructor(code: DomainErrorCode, message: string) {
    super(message);
    this.name = code;
    this.code = code;
    this.status = STATUS[code];
  }
}

/** 400: the request is well-formed JSON but a value is wrong. Start the message with the field path. */
export class InvalidArgument extends DomainError {
  constructor(message: string) {
    super('InvalidArgument', message);
  }
}

/** 401: no usable credentials. */
export class Unauthenticated extends DomainError {
  constructor(message = 'authorization: a valid "Authorization: Bearer <token>" header is required') {
    super('Unauthenticated', message);
  }
}

/** 403: the caller can see the resource but lacks the permission the operation needs. */
export class PermissionDenied extends DomainError {
  constructor(message: string) {
    super('PermissionDenied', message);
  }
}

/** 404: unknown, or not visible to the caller (existence is never leaked). */
export class NotFound extends DomainError {
  constructor(message: string) {
    super('NotFound', message);
  }
}

/** 409: the operation conflicts with the current state (duplicate, would change nothing, wrong state). */
export class Conflict extends DomainError {
  constructor(message: string) {
    super('Conflict', message);
  }
}

/** 412: the operation cannot be performed on this resource. */
export class PreconditionFailed extends DomainError {
  constructor(message: string) {
    super('PreconditionFailed', message);
  }
}

/** 503: a dependency (Redis, ...) is unreachable; retry later. */
export class ServiceUnavailable extends DomainError {
  constructor(message: string) {
    super('ServiceUnavailable', message);
  }
}

/** 501: the operation exists in the reference but this server does not offer it (the message says what to use). */
export class NotImplemented extends DomainError {
  constructor(message: string) {
    super('NotImplemented', message);
  }
}
