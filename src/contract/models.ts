import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Timestamp, page, PageQuery } from './common.js';

/** A price per million input and output tokens (src/contract/money.ts keeps the arithmetic). */
export const PricePerMillion = z.object({
  input_per_million: z.number().min(0),
  output_per_million: z.number().min(0),
});

export const ModelState = z.enum(['present', 'missing']);
export const Model = z.object({
  id: z.string(),
  name: z.string(),
  family: z.string(),
  /** Parameter count, e.g. 8030000000. */
  parameters: z.number().int().min(0).nullable(),
  quantization: z.string().nullable(),
  size_bytes: z.number().int().min(0).nullable(),
  state: ModelState,
  active: z.boolean(),
  /**
   * what the model's tokens cost, per million, in `currency` (the appliance's pricing); null: the
   * model is unpriced, its calls are counted as such and never as free (a model that costs nothing
   * says 0 and 0)
   */
  price: PricePerMillion.nullable(),
  /** the appliance's currency (ISO 4217); null: no pricing is configured, every model is unpriced */
  currency: z.string().nullable(),
});
export type Model = z.infer<typeof Model>;
export const ModelList = page(Model);

export const ActivateModel = z.strictObject({ model_id: z.string().min(1).max(200) });
export const ActivateResult = z.object({
  model_id: z.string(),
  active: z.literal(true),
  previous_model_id: z.string().nullable(),
});

export const RoutingEntry = z.object({
  workload: z.string(),
  /** null follows the active model */
  model_id: z.string().nullable(),
  effective_model_id: z.string().nullable(),
  updated_at: Timestamp.nullable(),
  updated_by: z.string().nullable(),
});
export type RoutingEntry = z.infer<typeof RoutingEntry>;
export const RoutingList = page(RoutingEntry);
export const RoutingParams = z.strictObject({ workload: z.string().min(1).max(100) });
export const SetRouting = z.strictObject({ model_id: z.string().min(1).max(200).nullable() });

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const modelRoutes = {
  listModels: { query: PageQuery, response: ModelList },
  activateModel: { body: ActivateModel, response: ActivateResult },
  listRouting: { query: PageQuery, response: RoutingList },
  setRouting: { params: RoutingParams, body: SetRouting, response: RoutingEntry },
} as const satisfies AreaRoutes<'models'>;
