/**
 * Why an import cannot be done: its source, as fetched, is not something Quire imports (a source it cannot read, a
 * URL it may not fetch, a file of the wrong kind, an unsafe or too large archive, content outside the format). The
 * same import fails again. Like the domain's errors (src/domain/errors.ts) it carries a stable `code` and `data`; the
 * message starts with the field it is about (`url:`, `source:`). The domain turns it into its own InvalidArgument
 * (src/domain/imports/imports.ts), so the conversion, which runs in an isolated thread, loads no domain module.
 */
export class ImportRefused extends Error {
  readonly code = 'ImportRefused';
  readonly data: Readonly<Record<string, unknown>>;

  constructor(message: string, data: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.name = 'ImportRefused';
    this.data = data;
  }
}
