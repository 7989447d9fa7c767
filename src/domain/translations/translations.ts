/**
 * Translation settings in the spec's shape: a title and the languages content is translated into (not the
 * reference's `Translation`, a different resource). The spec's bodies carry only `title`; `languages` is an
 * optional extra member of both bodies, the reference's language codes, kept when absent.
 * Members who are not guests read them; admins change them (src/domain/permissions.ts).
 */
import type { Context, Caller } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireTranslationPermission, type OrgAccess } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import {
  deleteTranslationSettingsRow,
  findTranslationSettings,
  insertTranslationSettings,
  listTranslationSettings as listTranslationRows,
  updateTranslationSettingsRow,
  type TranslationSettingsRow,
} from '../../store/sql/translations.js';

/** The reference's TranslationLanguage codes (Quire's choice: the spec names no languages). */
export const TRANSLATION_LANGUAGES = [
  'en', 'fr', 'de', 'es', 'it', 'pt', 'ru', 'ja', 'zh', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu',
  'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl',
] as const;
export type TranslationLanguage = (typeof TRANSLATION_LANGUAGES)[number];

export interface TranslationSettingsView {
  settings: TranslationSettingsRow;
  languages: TranslationLanguage[];
  access: OrgAccess;
}

export interface TranslationSettingsInput {
  title: string;
  languages?: TranslationLanguage[];
}

function viewOf(settings: TranslationSettingsRow, access: OrgAccess): TranslationSettingsView {
  return { settings, languages: JSON.parse(settings.languages) as TranslationLanguage[], access };
}

function checkedTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length === 0) throw new InvalidArgument('title: must not be blank');
  return trimmed;
}

/** Languages in the order given, each once (the schema already limits them to the known codes). */
function checkedLanguages(languages: readonly TranslationLanguage[]): string {
  const seen = new Set<string>();
  languages.forEach((language, i) => {
    if (seen.has(language)) throw new InvalidArgument(`languages[${i}]: "${language}" is listed twice`);
    seen.add(language);
  });
  return JSON.stringify(languages);
}

async function settingsOf(ctx: Context, organizationId: string, id: string): Promise<TranslationSettingsRow> {
  const settings = await findTranslationSettings(ctx.db, organizationId, id);
  if (!settings) throw new NotFound(`translationSettingsId: no translation settings "${id}" are visible to you`);
  return settings;
}

export async function listTranslationSettings(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  request: PageRequest,
): Promise<Page<TranslationSettingsView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireTranslationPermission(access, undefined, 'view', 'list translation settings');
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `translations:${organizationId}`,
    request,
    fetch: (after, n) => listTranslationRows(ctx.db, organizationId, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => viewOf(row, access),
  });
  return page;
}

export async function createTranslationSettings(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: TranslationSettingsInput,
): Promise<TranslationSettingsView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireTranslationPermission(access, undefined, 'edit', 'create translation settings');
  const now = nowIso();
  const settings: TranslationSettingsRow = {
    id: newId(),
    organization_id: organizationId,
    title: checkedTitle(input.title),
    languages: checkedLanguages(input.languages ?? []),
    created_at: now,
    updated_at: now,
  };
  await insertTranslationSettings(ctx.db, settings);
  return viewOf(settings, access);
}

export async function getTranslationSettings(ctx: Context, caller: Caller, organizationId: string, id: string): Promise<TranslationSettingsView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireTranslationPermission(access, id, 'view', 'read translation settings');
  return viewOf(await settingsOf(ctx, organizationId, id), access);
}

/** Replaces the title (and the languages when given). */
export async function updateTranslationSettings(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  id: string,
  input: TranslationSettingsInput,
): Promise<TranslationSettingsView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireTranslationPermission(access, id, 'edit', 'change translation settings');
  await settingsOf(ctx, organizationId, id);
  const changes = {
    title: checkedTitle(input.title),
    ...(input.languages ? { languages: checkedLanguages(input.languages) } : {}),
    updated_at: nowIso(),
  };
  await updateTranslationSettingsRow(ctx.db, organizationId, id, changes);
  return viewOf(await settingsOf(ctx, organizationId, id), access);
}

/** Deletes translation settings (admin). True when they existed (205), false when they did not (204). */
export async function deleteTranslationSettings(ctx: Context, caller: Caller, organizationId: string, id: string): Promise<boolean> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireTranslationPermission(access, id, 'edit', 'delete translation settings');
  return deleteTranslationSettingsRow(ctx.db, organizationId, id);
}
