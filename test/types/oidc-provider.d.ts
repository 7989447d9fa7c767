/** The little of oidc-provider (which ships no types) that test/helpers/oidc-provider.ts uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
