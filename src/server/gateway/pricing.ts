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

/** Why a budget cannot be set on an appliance without pricing (409; the demo's trail tells of one). */
export const NO_PRICING_FOR_BUDGET =
  "the appliance has no pricing: a budget is counted in its currency, and the config file's `pricing` names none";
