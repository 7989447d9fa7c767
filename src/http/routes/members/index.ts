import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../index.js';

export const memberRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async () => {};
