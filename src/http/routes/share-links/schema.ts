import { Type } from 'typebox';
import { ListQuery } from '../../schemas.js';

export const ShareLinkParams = Type.Object({ organizationId: Type.String(), siteId: Type.String(), shareLinkId: Type.String() });

export const ListShareLinksQuery = Type.Object({ ...ListQuery });

export const ShareLinkName = Type.String({ maxLength: 50 });

export const CreateShareLinkBody = Type.Object({ name: ShareLinkName });

export const UpdateShareLinkBody = Type.Object({ active: Type.Optional(Type.Boolean()), name: Type.Optional(ShareLinkName) }, { minProperties: 1 });
