/**
 * Conditions of sections, site spaces and `{% if %}` blocks: their grammar and evaluation are pure code
 * (src/content/conditions.ts); here, the domain's check of a condition being saved.
 */
import { checkConditionSyntax } from '../../content/conditions.js';
import { InvalidArgument } from '../errors.js';

export { decidedCondition, evaluateCondition, type ConditionOutcomes, type VisitorClaims } from '../../content/conditions.js';

/**
 * Checks `expression` against the grammar (src/content/conditions.ts) and the site's claims. Throws 400 naming
 * `field` otherwise. `claims` are the names of the signed claims of the site's adaptive schema.
 */
export function checkCondition(expression: string, claims: ReadonlySet<string>, field = 'condition'): void {
  checkConditionSyntax(expression, claims, (message: string): never => {
    throw new InvalidArgument(`${field}: ${message}`);
  });
}
