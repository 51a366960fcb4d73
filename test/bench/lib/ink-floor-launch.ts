// Runs lib/ink-floor.tsx's CommonJS bundle as bin/appliance-admin.cjs runs the dashboard's: through
// V8's code cache (src/cli/code-cache.ts), saved a second after the first frame or at exit.
import { join } from 'node:path';
import { requireWithCodeCache } from '../../../src/cli/code-cache.js';

const floor = requireWithCodeCache<{ start(): Promise<void> }>(join(__dirname, 'floor.cjs'));
void floor.exports.start().then(() => {
  setTimeout(() => floor.save(), 1000).unref();
  process.once('exit', () => floor.save());
});
