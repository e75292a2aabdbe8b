// Loaded with `node --import` by operator.test.ts: the process resolves `ioredis` as if it were not
// installed (Node's own "Cannot find package" error), whatever node_modules holds.
import { register } from 'node:module';

const hooks = `export async function resolve(specifier, context, next) {
  return next(specifier === 'ioredis' ? 'ioredis-is-not-installed' : specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
