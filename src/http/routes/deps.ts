/** What every route plugin receives (a module of its own, so that route modules need not import the list of routes). */
import type { Context } from '../../domain/context.js';
import type { Urls } from '../urls.js';

export interface RouteDeps {
  ctx: Context;
  urls: Urls;
}
