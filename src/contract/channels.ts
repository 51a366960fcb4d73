import * as z from 'zod';
import { Timestamp, page } from './common.js';

export const Channel = z.object({ id: z.string(), name: z.string(), enabled: z.boolean(), updated_at: Timestamp });
export type Channel = z.infer<typeof Channel>;
export const ChannelList = page(Channel);

/** Applies all or none. */
export const ChannelsUpdate = z.strictObject({
  channels: z
    .array(z.strictObject({ id: z.string().min(1).max(100), enabled: z.boolean() }))
    .min(1)
    .max(100),
});
export type ChannelsUpdate = z.infer<typeof ChannelsUpdate>;
