import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Timestamp, page, PageQuery } from './common.js';

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

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const channelRoutes = {
  listChannels: { query: PageQuery, response: ChannelList },
  updateChannels: { body: ChannelsUpdate, response: ChannelList },
} as const satisfies AreaRoutes<'channels'>;
