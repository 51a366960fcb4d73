import { constants, open, type FileHandle } from 'node:fs/promises';
import { thousands } from '../text/thousands.js';
import { PACK_LIMITS, type KeyInventoryLimits as Limits } from './evidence-pack.js';

/** What a pack's key inventory holds: its keys, or the first thing wrong with it. */
export type InventoryCheck =
  | { ok: true; keys: number }
  | { ok: false; problem: string; unknown?: true }
  /** the file is missing, not a regular file or too large: the manifest check says so */
  | { ok: false; skipped: true };

/**
 * Reads a pack's key inventory (KEY_INVENTORY, evidence-pack.ts) as hostile: every line must be one
 * gateway key as the appliance served it (a JSON object: what it holds is the appliance's answer, not
 * the pack's to judge), no line longer than `keyLineBytes` (a longer one is never held whole: it is a
 * finding as soon as it passes the bound), at most `keys` lines, at most `keyInventoryBytes` in all.
 * Stops at the first problem, saying on which line. `limits`: smaller in tests.
 */
export async function checkKeyInventory(path: string, limits: Limits = PACK_LIMITS): Promise<InventoryCheck> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { ok: false, skipped: true };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > limits.keyInventoryBytes) return { ok: false, skipped: true };
    return await readLines(fh, limits);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | null)?.code;
    return { ok: false, problem: `could not be read (${typeof code === 'string' ? code : 'error'})`, unknown: true };
  } finally {
    await fh.close();
  }
}

async function readLines(fh: FileHandle, limits: Limits): Promise<InventoryCheck> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  // the line being read, in parts, and its length so far
  let parts: Buffer[] = [];
  let length = 0;
  let line = 0;
  let position = 0;
  const lineProblem = (bytes: Buffer): string | null => {
    line++;
    if (line > limits.keys) return `holds more than ${thousands(limits.keys)} keys, more than a pack may`;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      return `line ${thousands(line)} is not JSON`;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return `line ${thousands(line)} is not a gateway key (a JSON object)`;
    return null;
  };
  const tooLong = () => `line ${thousands(line + 1)} is longer than ${thousands(limits.keyLineBytes)} bytes: not a key`;
  for (;;) {
    const { bytesRead } = await fh.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    if (position > limits.keyInventoryBytes)
      return { ok: false, problem: `grew past ${thousands(limits.keyInventoryBytes)} bytes while it was read` };
    let start = 0;
    for (let nl = buffer.indexOf(10, start); nl !== -1 && nl < bytesRead; nl = buffer.indexOf(10, start)) {
      if (length + nl - start > limits.keyLineBytes) return { ok: false, problem: tooLong() };
      const whole = Buffer.concat([...parts, buffer.subarray(start, nl)]);
      parts = [];
      length = 0;
      const problem = lineProblem(whole);
      if (problem) return { ok: false, problem };
      start = nl + 1;
    }
    if (start < bytesRead) {
      length += bytesRead - start;
      if (length > limits.keyLineBytes) return { ok: false, problem: tooLong() };
      parts.push(Buffer.from(buffer.subarray(start, bytesRead)));
    }
  }
  // the last line may go without its newline
  if (length > 0) {
    const problem = lineProblem(Buffer.concat(parts));
    if (problem) return { ok: false, problem };
  }
  return { ok: true, keys: line };
}
