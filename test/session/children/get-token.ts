// A second process using the same session: waits for a line on stdin (so two of them start
// renewing at the same moment), then prints a hash of the token getAccessToken returns.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { getAccessToken } from '../../../src/client/session/index.js';

const [file, margin] = process.argv.slice(2);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
try {
  const token = await getAccessToken({ file, refreshMarginMs: margin ? Number(margin) : undefined });
  process.stdout.write(`token ${createHash('sha256').update(token).digest('hex')}\n`);
} catch (err) {
  process.stdout.write(`error ${(err as Error).name}: ${(err as Error).message}\n`);
}
process.exit(0);
