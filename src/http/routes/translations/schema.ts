import { Type } from 'typebox';
import { ListQuery, StringEnum, Timestamp, Url } from '../../schemas.js';
import { TRANSLATION_LANGUAGES } from '../../../domain/translations/translations.js';

export const OrganizationParams = Type.Object({ organizationId: Type.String() });
export const TranslationSettingsParams = Type.Object({ organizationId: Type.String(), translationSettingsId: Type.String() });

const Language = StringEnum(TRANSLATION_LANGUAGES, { description: 'A language code' });

/** The spec's body is `{title}`; `languages` is an optional extra member (Quire's choice). */
export const TranslationSettingsBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 100 }),
  languages: Type.Optional(
    Type.Array(Language, {
      maxItems: TRANSLATION_LANGUAGES.length,
      description: 'Quire extension: the languages content is translated into, each once; kept as they are when absent',
    }),
  ),
});

/** The spec's TranslationSettings (the reference's `Translation` is a different resource). */
export const TranslationSettingsSchema = Type.Object({
  object: Type.Literal('translation-settings'),
  id: Type.String(),
  title: Type.String(),
  languages: Type.Array(Language),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  permissions: Type.Object({ view: Type.Boolean(), edit: Type.Boolean() }),
  urls: Type.Object({ location: Url }),
});

export const TranslationSettingsQuery = Type.Object({ ...ListQuery });
