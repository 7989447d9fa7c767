/**
 * An import's refusal (src/content/imports/import-refused.ts, thrown by the conversion inline or in its isolated
 * thread) in the domain's terms: an InvalidArgument with the same message and data, which callers and the error
 * translator know. Any other error stays as it is.
 */
import { ImportRefused } from '../../content/imports/import-refused.js';
import { InvalidArgument } from '../errors.js';

export function asDomainError(error: unknown): unknown {
  return error instanceof ImportRefused ? new InvalidArgument(error.message, error.data) : error;
}

/** Runs `work` (code of src/content/imports), a refusal of it thrown as an InvalidArgument. */
export function refusalsAsInvalid<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw asDomainError(error);
  }
}
