import { lstatSync, readFileSync } from 'node:fs';
import { readWitnessKey, type WitnessKey } from '../audit-chain/witness-check.js';
import { UsageError } from '../config/usage-error.js';

/** A witness's vkey file (W.pub, as audit witness-key writes it): its first line; bad usage when it is not one. */
export function readWitnessFile(file: string): WitnessKey {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    throw new UsageError(`cannot read the witness key ${file}`);
  }
  if (!st.isFile()) throw new UsageError(`the witness key ${file} is not a regular file`);
  if (st.size > 4096) throw new UsageError(`the witness key ${file} is larger than 4096 bytes`);
  const w = readWitnessKey(readFileSync(file, 'utf8').split('\n')[0] ?? '');
  if (typeof w === 'string') throw new UsageError(`the witness key ${file} is ${w}`);
  return w;
}
