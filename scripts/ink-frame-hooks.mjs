// Node module hooks giving code run from source (tsx: benchmarks, vitest) the same Ink frame
// builder as the bundle. Registered by scripts/ink-frame-register.mjs.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inkFrameTarget } from './ink-frame.mjs';

export async function resolve(specifier, context, next) {
  const parent = context.parentURL?.startsWith('file:') ? fileURLToPath(context.parentURL) : undefined;
  const target = parent && inkFrameTarget(specifier, parent);
  // through the next resolvers, so that tsx (or vitest) loads the TypeScript source
  if (target) return next(pathToFileURL(target).href, context);
  return next(specifier, context);
}
