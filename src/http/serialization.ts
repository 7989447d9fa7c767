/**
 * Answer serializers (fast-json-stringify, as Fastify's own compiler builds them) made once per response schema in a
 * process and shared by every app built in it. The schemas are the routes' module constants, so an app built again in
 * the same process (the tests build hundreds) finds them made: building them was most of what starting an app cost
 * once its modules were loaded.
 */
import fastJsonStringify from 'fast-json-stringify';

type Serialize = (data: unknown) => string;

const serializers = new WeakMap<object, Serialize>();

export function serializerCompiler({ schema }: { schema: object }): Serialize {
  let serialize = serializers.get(schema);
  if (serialize === undefined) {
    serialize = fastJsonStringify(schema) as Serialize;
    serializers.set(schema, serialize);
  }
  return serialize;
}
