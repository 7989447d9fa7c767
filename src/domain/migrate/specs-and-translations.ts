/**
 * `quire migrate`'s steps for an organization's OpenAPI specifications and translation settings: small settings
 * each copied whole, and copied again when their fingerprint changes. Together because they are alike and short.
 */
import { createSpec, putSpec } from '../openapi/specs.js';
import { createTranslationSettings, updateTranslationSettings } from '../translations/translations.js';
import { fingerprintOf, type MigrationRun } from './migration-run.js';
import type { SourceSpec, SourceTranslation } from './source-resources.js';

export async function copySpecs(run: MigrationRun, o: string, target: string): Promise<void> {
  const specs = await run.copyOrSkip('openapi-specs', o, () => run.source.list<SourceSpec>(`OpenAPI specifications of ${o}`, (c, p) => c.orgs.listOpenApiSpecs(o, p)));
  for (const spec of specs ?? []) {
    await run.copyOrSkip('openapi-spec', spec.id, async () => {
      let source: { url: string } | { text: string };
      if (spec.sourceURL) source = { url: spec.sourceURL };
      else {
        const content = await run.source.read<{ filesystem?: Record<string, unknown> }>(`OpenAPI specification ${spec.slug}`, (c) => c.orgs.getLatestOpenApiSpecVersionContent(o, spec.slug));
        const documents = Object.values(content.filesystem ?? {});
        if (documents.length !== 1) throw new Error(`the source gives ${documents.length} files for its latest version; one document was expected`);
        source = { text: typeof documents[0] === 'string' ? documents[0] : JSON.stringify(documents[0]) };
      }
      const fingerprint = fingerprintOf({ slug: spec.slug, source });
      const existing = await run.mapped('openapi-spec', spec.id);
      if (existing?.fingerprint === fingerprint) return;
      const view = existing ? await putSpec(run.ctx, run.actor, target, spec.slug, { source }) : await createSpec(run.ctx, run.actor, target, { slug: spec.slug, source });
      await run.remember('openapi-spec', spec.id, view.spec.id, fingerprint);
      run.count('openapiSpecs');
    });
  }
}

export async function copyTranslations(run: MigrationRun, o: string, target: string): Promise<void> {
  const settings = await run.copyOrSkip('translations', o, () => run.source.list<SourceTranslation>(`translation settings of ${o}`, (c, p) => c.orgs.listTranslations(o, p)));
  for (const entry of settings ?? []) {
    await run.copyOrSkip('translation-settings', entry.id, async () => {
      const input = { title: entry.title, languages: (entry.languages ?? []) as never[] };
      const fingerprint = fingerprintOf(input);
      const existing = await run.mapped('translation-settings', entry.id);
      if (existing?.fingerprint === fingerprint) return;
      const view = existing
        ? await updateTranslationSettings(run.ctx, run.actor, target, existing.target_id, input)
        : await createTranslationSettings(run.ctx, run.actor, target, input);
      await run.remember('translation-settings', entry.id, view.settings.id, fingerprint);
      run.count('translationSettings');
    });
  }
}
