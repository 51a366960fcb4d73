import type { ServerConfig } from '../config.js';
import type { ModelPrice } from '../../contract/index.js';

/** The appliance's currency, or null when no pricing is configured (then no key budget can be set). */
export const currencyOf = (config: ServerConfig): string | null => config.pricing?.currency ?? null;

/**
 * A model's price per million tokens, or null: unpriced (absent from the config's pricing, or no
 * model at all). Null is never read as zero; a model that costs nothing is priced at 0 and 0.
 */
export const priceOf = (config: ServerConfig, modelId: string | null): ModelPrice | null =>
  (modelId !== null && config.pricing?.models[modelId]) || null;
