import type { Rng } from './prng.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const HISTORY_DAYS = 30;

/** Relative office activity by UTC hour (a European business day): quiet nights, a lunch dip. */
const HOUR_CURVE = [
  0.04, 0.03, 0.03, 0.03, 0.04, 0.08, 0.2, 0.45, 0.8, 1, 0.95, 0.9, 0.6, 0.85, 1, 0.95, 0.8, 0.55, 0.3, 0.18, 0.12,
  0.08, 0.06, 0.05,
];

/** How busy the appliance is at a moment, 0..1: weekdays busier than weekends. */
export function activityAt(ms: number): number {
  const d = new Date(ms);
  const weekday = d.getUTCDay();
  const dayFactor = weekday === 0 || weekday === 6 ? 0.22 : 1;
  const h = d.getUTCHours();
  const next = HOUR_CURVE[(h + 1) % 24];
  const frac = d.getUTCMinutes() / 60;
  return dayFactor * (HOUR_CURVE[h] * (1 - frac) + next * frac);
}

/** A moment in [from, to) drawn with density following activityAt (rejection sampling). */
export function sampleBusyTime(rng: Rng, from: number, to: number, floor = 0.02): number {
  for (;;) {
    const t = from + rng.next() * (to - from);
    if (rng.next() < Math.max(activityAt(t), floor)) return Math.floor(t);
  }
}
