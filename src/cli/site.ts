/** `quire site export`. */
import { exportSite } from '../http/routes/published/export.js';
import { endProgress, print, showProgress, withContainer } from './common.js';

export async function siteExport(siteId: string, dir: string): Promise<void> {
  await withContainer('site export', {}, async ({ ctx }) => {
    const result = await exportSite(ctx, siteId, dir, ({ pages, files }) => showProgress(`exported ${pages} pages, ${files} files`));
    endProgress();
    print(result);
  });
}
