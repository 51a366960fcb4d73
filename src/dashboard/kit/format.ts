/** Short human renderings for cells and the header. */
import { thousands } from '../../text/thousands.js';

export function ago(iso: string | number | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined || iso === '') return 'never';
  if (typeof iso !== 'string' && typeof iso !== 'number') return '?';
  const t = typeof iso === 'number' ? iso : Date.parse(iso);
  if (!Number.isFinite(t)) return String(iso);
  const s = Math.round((now - t) / 1000);
  if (s < 0) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

export const limitText = (v: number | null | undefined): string =>
  v === null || v === undefined ? 'unlimited' : typeof v === 'number' ? thousands(v) : String(v);

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** 2026-11-21 09:30 (UTC), for tables; the detail view shows the exact value. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  if (typeof iso !== 'string') return '?';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  return new Date(t).toISOString().slice(0, 16).replace('T', ' ');
}

/** How often the dashboard polls, in words for the header and messages: "500 ms", "2 s", "1.5 m". */
export function intervalText(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)} s`;
  return `${+(ms / 60_000).toFixed(1)} m`;
}

/**
 * A cost in the appliance's currency: "12.34 EUR", "1,204 EUR" from a thousand up, "<0.01 EUR" for
 * less than a cent that is not nothing; "–" without a currency (no pricing) or a number.
 */
export function money(amount: number | null | undefined, currency: string | null | undefined): string {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || !currency) return '–';
  const text =
    amount > 0 && amount < 0.01 ? '<0.01' : amount >= 1000 ? thousands(Math.round(amount)) : amount.toFixed(2);
  return `${text} ${currency}`;
}

/** A price per million tokens: "0.20", "1.2345", "0": at least two decimals, at most six. */
const perMillion = (n: number) => (n === 0 ? '0' : n.toFixed(Math.max(2, Math.min(6, decimals(n)))));
const decimals = (n: number) => (String(n).split('.')[1] ?? '').length;

/**
 * A model's price as "in/out per million tokens": "0.20/0.60 EUR", "0/0 EUR free" for a model stated
 * to cost nothing, "unpriced" for one the pricing leaves out (its calls are not free: their cost is
 * unknown), "–" when the appliance has no pricing at all.
 */
export function priceText(
  price: { input_per_million: number; output_per_million: number } | null | undefined,
  currency: string | null | undefined,
): string {
  if (!currency) return '–';
  if (!price) return 'unpriced';
  const { input_per_million: i, output_per_million: o } = price;
  return `${perMillion(i)}/${perMillion(o)} ${currency}${i === 0 && o === 0 ? ' free' : ''}`;
}
