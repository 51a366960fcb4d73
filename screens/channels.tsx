import type { Channel } from '../src/contract/index.js';
import { defineScreen } from '../src/dashboard/kit/screen-api.js';
import { ago } from '../src/dashboard/kit/format.js';
import { timeKey } from '../src/dashboard/kit/sort.js';
import { auditHistoryAction } from '../src/dashboard/kit/audit-history.js';

const badge = (c: Channel) => (c.enabled ? '● enabled' : '○ disabled');

export const channelsScreen = defineScreen<Channel>({
  name: 'channels',
  title: 'Agent channels',
  resources: () => [{ id: 'channels', route: 'listChannels', query: { limit: 500 } }],
  list: {
    columns: [
      { header: 'Name', value: (c) => c.name, grow: true, maxWidth: 40 },
      { header: 'ID', value: (c) => c.id, maxWidth: 30 },
      { header: 'State', value: badge, tone: (c) => (c.enabled ? 'ok' : 'muted'), keep: true },
      { header: 'Updated', value: (c) => ago(c.updated_at), sort: (c) => timeKey(c.updated_at) },
    ],
    rowKey: (c) => c.id,
    empty: 'No agent channels are configured.',
    summary: (rows) =>
      `${rows.length} channel${rows.length === 1 ? '' : 's'} · ${rows.filter((c) => c.enabled).length} enabled`,
  },
  actions: [
    {
      key: ' ',
      label: 'toggle',
      mutates: true,
      capability: 'channel.update',
      needsRow: true,
      async run(ctx, channel) {
        const verb = channel.enabled ? 'Disable' : 'Enable';
        const ok = await ctx.confirm({
          title: `${verb} channel ${channel.name}?`,
          message: [
            `${channel.name} (${channel.id}) is ${channel.enabled ? 'enabled' : 'disabled'}.`,
            channel.enabled
              ? 'Disabling it stops agents from answering on this channel.'
              : 'Enabling it lets agents answer on this channel.',
          ],
          confirmLabel: verb,
          danger: channel.enabled,
        });
        if (!ok) return;
        const list = await ctx.call('updateChannels', {
          body: { channels: [{ id: channel.id, enabled: !channel.enabled }] },
        });
        const now = (list.data ?? []).find((x) => x.id === channel.id);
        const state = now ? (now.enabled ? 'enabled' : 'disabled') : 'updated';
        return { title: `Channel ${state}`, summary: [`${channel.name} (${channel.id}) is now ${state}.`] };
      },
    },
    auditHistoryAction<Channel>((c) => ({ type: 'channel', search: c.id })),
  ],
});
