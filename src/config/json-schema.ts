import * as z from 'zod';
import { DashboardConfig } from './schema.js';

/**
 * The config file's JSON Schema, for editors: generated from the zod schema by the build
 * (scripts/build.mjs writes dist/config.schema.json), never written by hand.
 */
export const configJsonSchema = (): Record<string, unknown> => ({
  ...z.toJSONSchema(DashboardConfig),
  title: 'appliance-admin config.yaml',
});
