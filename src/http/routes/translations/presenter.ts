import type { TranslationSettingsView } from '../../../domain/translations/translations.js';
import { translationPermissions } from '../../../domain/permissions.js';
import type { Urls } from '../../urls.js';

export function presentTranslationSettings(urls: Urls, view: TranslationSettingsView) {
  const s = view.settings;
  return {
    object: 'translation-settings' as const,
    id: s.id,
    title: s.title,
    languages: view.languages,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    permissions: translationPermissions(view.access),
    urls: { location: urls.api(`/orgs/${s.organization_id}/translations/${s.id}`) },
  };
}
