/**
 * Money on the appliance: prices per million tokens and costs, in the one currency its config names.
 * Without zod, so that the dashboard and the CLI can format money without building the gateway's
 * schemas at start (docs/performance.md).
 *
 * Stored amounts are whole nano-units (1e-9 of the currency), so that sums and budget comparisons
 * are exact; the API gives amounts as decimal numbers of the currency, to MONEY_DECIMALS places.
 */

/** ISO 4217 alphabetic code: three capital letters. */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;
/** A price is at most this per million tokens: it keeps a call's cost exact in a double. */
export const MAX_PRICE_PER_MILLION = 10_000;
/** Prices are read to this many decimal places (a micro-unit per million tokens). */
export const PRICE_DECIMALS = 6;
/** Amounts in the API carry this many decimal places. */
export const MONEY_DECIMALS = 6;
export const NANOS_PER_UNIT = 1_000_000_000;
/** A key's budget is at most this many units of the currency per window: its nano-units stay exact in a double. */
export const MAX_BUDGET = 1_000_000;
/** The share of a key's budget the dashboard warns at, unless the budget says another. */
export const DEFAULT_BUDGET_WARN_PERCENT = 80;

/** A price as the config states it and the API shows it, per million tokens. */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
}

/** Nano-units as the API's decimal amount (rounded to MONEY_DECIMALS places). */
export const amountOfNanos = (nanos: number): number =>
  Math.round(nanos / 10 ** (9 - MONEY_DECIMALS)) / 10 ** MONEY_DECIMALS;

/** An API amount (or a budget a request sets) as whole nano-units. */
export const nanosOfAmount = (amount: number): number => Math.round(amount * NANOS_PER_UNIT);

/**
 * A call's cost in nano-units: tokens times the price per token, rounded up, so that a call is never
 * charged less than it cost. Prices are taken at PRICE_DECIMALS places (micro-units per million
 * tokens): tokens x micro-units per million is pico-units, a thousandth of a nano-unit.
 */
export function costNanos(price: ModelPrice, tokens: { input_tokens: number; output_tokens: number }): number {
  const micros = (p: number) => Math.round(p * 10 ** PRICE_DECIMALS);
  const picos =
    tokens.input_tokens * micros(price.input_per_million) + tokens.output_tokens * micros(price.output_per_million);
  return Math.ceil(picos / 1000);
}
