import type { Channel } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { badRequest, notFound } from '../errors.js';
import type { GroupFactory } from '../http/route-kit.js';
import { pageArray } from '../http/paging.js';
import { iso } from '../ids.js';

interface ChannelRow {
  id: string;
  name: string;
  enabled: number;
  updated_at: string;
}

/**
 * The config names the channels; the database keeps their on/off state. A new channel starts
 * as the config says, later toggles survive restarts, a renamed one takes its new name, and one
 * removed from the config is dropped (re-adding it starts again from the config).
 */
function syncFromConfig(db: Db, config: ServerConfig): void {
  const now = iso();
  const upsert = db.prepare(`INSERT INTO channels (id, name, enabled, updated_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET name = excluded.name WHERE name <> excluded.name`);
  db.transaction(() => {
    for (const c of config.channels) upsert.run(c.id, c.name, c.enabled ? 1 : 0, now);
    const ids = config.channels.map((c) => c.id);
    db.prepare(`DELETE FROM channels WHERE id NOT IN (SELECT value FROM json_each(?))`).run(JSON.stringify(ids));
  })();
}

/** All channels in config order. */
function allChannels(db: Db, config: ServerConfig): Channel[] {
  const rows = new Map(
    (db.prepare('SELECT id, name, enabled, updated_at FROM channels').all() as ChannelRow[]).map((r) => [r.id, r]),
  );
  return config.channels
    .map((c) => rows.get(c.id))
    .filter((r): r is ChannelRow => r !== undefined)
    .map((r) => ({ id: r.id, name: r.name, enabled: r.enabled === 1, updated_at: r.updated_at }));
}

/** Audit target for an attempt that failed before validation: the ids it named, if any. */
const requestedIds = (body: unknown): string | null => {
  const list = body && typeof body === 'object' ? (body as Record<string, unknown>).channels : undefined;
  if (!Array.isArray(list)) return null;
  const ids = list
    .slice(0, 20)
    .map((c) => (c && typeof c === 'object' ? (c as Record<string, unknown>).id : undefined))
    .filter((id): id is string => typeof id === 'string')
    .map((id) => id.slice(0, 100));
  return ids.length ? ids.join(',') : null;
};

/** The channels' names as the config gives them, in the order of `ids` (a comma-separated list). */
const namesOf = (config: ServerConfig, ids: string | null): string | null => {
  if (ids === null) return null;
  const names = ids.split(',').map((id) => config.channels.find((c) => c.id === id)?.name);
  return names.every((n) => n !== undefined) ? names.join(',') : null;
};

export const channelsGroup: GroupFactory = ({ db, config }) => {
  syncFromConfig(db, config);
  return {
    handlers: {
      listChannels: {
        allow: 'any role',
        audit: null,
        run: ({ query }) => ({ body: pageArray(allChannels(db, config), query, (c) => c.id) }),
      },
      updateChannels: {
        allow: 'mutating roles',
        audit: {
          action: 'channel.update',
          target: ({ body }) => {
            const id = requestedIds(body);
            return { type: 'channel', id, name: namesOf(config, id) };
          },
        },
        run: ({ body }) => {
          const seen = new Set<string>();
          body.channels.forEach((c, i) => {
            if (seen.has(c.id))
              throw badRequest(`channel ${c.id} appears more than once`, [
                { name: `channels.${i}.id`, reason: 'duplicate id' },
              ]);
            seen.add(c.id);
          });
          const current = new Map(allChannels(db, config).map((c) => [c.id, c]));
          const unknown = body.channels.filter((c) => !current.has(c.id)).map((c) => c.id);
          if (unknown.length) throw notFound(`no channel ${unknown.join(', ')}; nothing was changed`);

          const changes = body.channels
            .filter((c) => current.get(c.id)!.enabled !== c.enabled)
            .map((c) => ({ id: c.id, from: !c.enabled, to: c.enabled }));
          const now = iso();
          const update = db.prepare('UPDATE channels SET enabled = ?, updated_at = ? WHERE id = ?');
          for (const c of changes) update.run(c.to ? 1 : 0, now, c.id);

          const data = allChannels(db, config);
          const changedIds = changes.length ? changes.map((c) => c.id).join(',') : null;
          return {
            body: { data, next_cursor: null, has_more: false },
            target: { type: 'channel', id: changedIds, name: namesOf(config, changedIds) },
            details: { requested: body.channels.length, changes },
          };
        },
      },
    },
  };
};
