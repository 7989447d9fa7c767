import { Type } from 'typebox';
import { StringEnum } from '../../schemas.js';
import { MAX_REQUIRED_APPROVALS, MERGE_RULE_NAMES } from '../../../domain/change-requests/merge-rules.js';
import { ChangeRequestParams } from '../change-requests/schema.js';

export { ChangeRequestParams };
export const OrganizationParams = Type.Object({ organizationId: Type.String() });
export const SpaceParams = Type.Object({ spaceId: Type.String() });

const RuleFields = {
  requiredApprovals: Type.Integer({
    minimum: 0,
    maximum: MAX_REQUIRED_APPROVALS,
    description: "How many reviewers' current approvals a merge needs; above 0, a current request for changes blocks too",
  }),
  noNewBrokenLinks: Type.Boolean({ description: 'The change request may not add broken links (compared with its merge base)' }),
  noContentProblems: Type.Boolean({ description: "The change request's head may have no content problems (what the push checks report)" }),
};

export const OrganizationMergeRulesBody = Type.Object(
  {
    requiredApprovals: Type.Optional(RuleFields.requiredApprovals),
    noNewBrokenLinks: Type.Optional(RuleFields.noNewBrokenLinks),
    noContentProblems: Type.Optional(RuleFields.noContentProblems),
  },
  { additionalProperties: false, description: 'The rules; a field left out takes its default (0, false, false)' },
);

export const SpaceMergeRulesBody = Type.Object(
  {
    ...OrganizationMergeRulesBody.properties,
    inherit: Type.Optional(Type.Boolean({ description: "true: drop the space's own rules for the organization's (no other field then)" })),
  },
  { additionalProperties: false, description: "The space's rules (a field left out takes its default), or `{inherit: true}`" },
);

export const MergeRulesSchema = Type.Object({
  object: Type.Literal('merge-rules'),
  ...RuleFields,
  source: StringEnum(['space', 'organization', 'default'] as const, { description: 'Where the rules come from' }),
});

const BlockingRuleSchema = Type.Object({
  rule: StringEnum(MERGE_RULE_NAMES),
  message: Type.String({ description: 'A sentence saying what to do' }),
  data: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'What the rule found' }),
});

export const MergeabilitySchema = Type.Object({
  object: Type.Literal('change-request-mergeability'),
  mergeable: Type.Boolean({ description: 'No merge rule blocks the merge now' }),
  blocking: Type.Array(BlockingRuleSchema),
  rules: MergeRulesSchema,
});
