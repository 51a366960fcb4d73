import { Worker } from 'node:worker_threads';
import type { InkHarness } from './ink-harness.js';
import { nowMs } from './stats.js';

/**
 * Keys pressed from another thread, as a person's keys arrive: on their own clock, whatever the
 * drawing thread is doing (a garbage collection, a clock tick's frame, a poll's answer). `press`
 * in the harness starts each key from the drawing thread itself, so a key can never wait for it;
 * these can. Each key is stamped by the sender (process.hrtime, the clock the harness reads too)
 * just before it is posted; the next key follows its frame by 45–75 ms. The message between the
 * threads costs a few tenths of a millisecond of its own, which a key read from a terminal does not.
 */
const SENDER = `
const { parentPort } = require('node:worker_threads');
const keys = [];
const send = () => {
  const key = keys.shift();
  if (key === undefined) return parentPort.postMessage({ done: true });
  parentPort.postMessage({ key, sentAt: Number(process.hrtime.bigint()) / 1e6 });
};
parentPort.on('message', (m) => {
  if (m.keys) {
    keys.push(...m.keys);
    send();
  } else setTimeout(send, 45 + Math.random() * 30);
});`;

export interface SentKey {
  key: string;
  /** sent to rendered frame; null when no frame came within 1 s */
  ms: number | null;
  /** sent to taken up by the drawing thread */
  waitMs: number;
}

export async function pressFromThread(h: InkHarness, keys: string[]): Promise<SentKey[]> {
  const worker = new Worker(SENDER, { eval: true });
  const out: SentKey[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('message', (m: { done?: true; key: string; sentAt: number }) => {
        if (m.done) return resolve();
        const waitMs = nowMs() - m.sentAt;
        h.press(m.key, 1000, m.sentAt).then((t) => {
          out.push({ key: m.key, ms: t?.ms ?? null, waitMs });
          worker.postMessage('next');
        }, reject);
      });
      worker.postMessage({ keys });
    });
  } finally {
    await worker.terminate();
  }
  return out;
}
