import { Type } from 'typebox';
import { Timestamp, Url } from '../../schemas.js';
import { MAX_RISON_LENGTH } from '../../../content/rison.js';

export const SitePreviewQuery = Type.Object({
  siteSpace: Type.Optional(Type.String({ maxLength: 100, description: 'ID of the site-space to preview. If not provided, the default site-space will be used.' })),
  claims: Type.Optional(
    Type.String({ maxLength: MAX_RISON_LENGTH, description: 'Rison encoded string of attributes/assertions about the visitor for which we want to preview the site.' }),
  ),
});

export const SitePreviewSchema = Type.Object({ url: Url });

export const ChangeRequestPreviewParams = Type.Object({ spaceId: Type.String(), changeRequestId: Type.String() });

export const ChangeRequestPreviewLinkSchema = Type.Object({ url: Url, expiresAt: Timestamp });
