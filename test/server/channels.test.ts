import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, snapshot, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { ChannelList } from '../../src/contract/index.js';
import { until } from '../helpers/until.js';

const enabledById = (list: { data: { id: string; enabled: boolean }[] }) =>
  Object.fromEntries(list.data.map((c) => [c.id, c.enabled]));

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('GET /channels', () => {
  it('lists the configured channels with their configured state', async () => {
    const res = await s.call('GET', '/channels', { role: 'auditor' });
    expect(res.status).toBe(200);
    const page = ChannelList.parse(res.json);
    expect(page.data.map(({ id, name, enabled }) => ({ id, name, enabled }))).toEqual([
      { id: 'chan_web', name: 'Web chat', enabled: true },
      { id: 'chan_mail', name: 'Email', enabled: false },
    ]);
    expect(page.has_more).toBe(false);
  });
});

describe('PUT /channels', () => {
  it('toggles channels, answers the full list, and audits what changed', async () => {
    const before = ChannelList.parse((await s.call('GET', '/channels')).json);
    // updated_at must move for a changed channel: the clock past every channel's last change
    const latest = Math.max(...before.data.map((c) => Date.parse(c.updated_at)));
    await until('the clock to pass the last update', () => Date.now() > latest);
    const res = await s.call('PUT', '/channels', {
      role: 'app_owner',
      body: {
        channels: [
          { id: 'chan_mail', enabled: true },
          { id: 'chan_web', enabled: true },
        ],
      },
    });
    expect(res.status).toBe(200);
    const after = ChannelList.parse(res.json);
    expect(enabledById(after)).toEqual({ chan_web: true, chan_mail: true });
    const web = (l: typeof after) => l.data.find((c) => c.id === 'chan_web')!;
    const mail = (l: typeof after) => l.data.find((c) => c.id === 'chan_mail')!;
    expect(web(after).updated_at).toBe(web(before).updated_at);
    expect(mail(after).updated_at).not.toBe(mail(before).updated_at);
    expect(enabledById((await s.call('GET', '/channels')).json)).toEqual({ chan_web: true, chan_mail: true });

    const audit = s.server.db
      .prepare(
        "SELECT target_type, target_id, outcome, actor_role, details FROM audit WHERE action = 'channel.update' ORDER BY seq DESC",
      )
      .get() as Record<string, string>;
    expect(audit).toMatchObject({
      target_type: 'channel',
      target_id: 'chan_mail',
      outcome: 'success',
      actor_role: 'app_owner',
    });
    expect(JSON.parse(audit.details)).toEqual({ requested: 2, changes: [{ id: 'chan_mail', from: false, to: true }] });
  });

  it('applies all or none: one unknown id is a 404 naming it and nothing changes', async () => {
    const before = snapshot(s, 'channels');
    const res = await s.call('PUT', '/channels', {
      body: {
        channels: [
          { id: 'chan_web', enabled: false },
          { id: 'chan_fax', enabled: true },
        ],
      },
    });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 'SVC-ADMIN-404', detail: expect.stringContaining('chan_fax') });
    expect(snapshot(s, 'channels')).toEqual(before);
    const audit = s.server.db
      .prepare("SELECT target_id, outcome, status FROM audit WHERE action = 'channel.update' ORDER BY seq DESC")
      .get();
    expect(audit).toEqual({ target_id: 'chan_web,chan_fax', outcome: 'failed', status: 404 });
  });

  it('refuses duplicate ids in one request with 400 and changes nothing', async () => {
    const before = snapshot(s, 'channels');
    const res = await s.call('PUT', '/channels', {
      body: {
        channels: [
          { id: 'chan_web', enabled: false },
          { id: 'chan_web', enabled: true },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.invalid_params).toEqual([{ name: 'channels.1.id', reason: 'duplicate id' }]);
    expect(snapshot(s, 'channels')).toEqual(before);
  });

  it('gives an auditor 403, changes nothing, and audits the denied attempt', async () => {
    const before = snapshot(s, 'channels');
    const res = await s.call('PUT', '/channels', {
      role: 'auditor',
      body: { channels: [{ id: 'chan_web', enabled: false }] },
    });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('SVC-ADMIN-403');
    expect(snapshot(s, 'channels')).toEqual(before);
    const denied = s.server.db
      .prepare("SELECT target_type, target_id FROM audit WHERE action = 'channel.update' AND outcome = 'denied'")
      .all();
    expect(denied).toEqual([{ target_type: 'channel', target_id: 'chan_web' }]);
  });
});

describe('channels across restarts', () => {
  it('keeps toggles, drops channels removed from the config, and adds new ones as configured', async () => {
    const a = await startTestServer();
    const put = await a.call('PUT', '/channels', {
      body: {
        channels: [
          { id: 'chan_mail', enabled: true },
          { id: 'chan_web', enabled: false },
        ],
      },
    });
    expect(put.status).toBe(200);
    await a.close();

    const same = await startTestServer({ dataDir: a.dataDir });
    try {
      expect(enabledById((await same.call('GET', '/channels')).json)).toEqual({ chan_web: false, chan_mail: true });
    } finally {
      await same.close();
    }

    const changed = await startTestServer({
      dataDir: a.dataDir,
      config: (root) =>
        fixtureConfig(root, {
          channels: [
            { id: 'chan_mail', name: 'E-mail', enabled: false },
            { id: 'chan_sms', name: 'SMS', enabled: true },
          ],
        }),
    });
    try {
      const list = ChannelList.parse((await changed.call('GET', '/channels')).json);
      expect(list.data.map(({ id, name, enabled }) => ({ id, name, enabled }))).toEqual([
        { id: 'chan_mail', name: 'E-mail', enabled: true },
        { id: 'chan_sms', name: 'SMS', enabled: true },
      ]);
      const gone = await changed.call('PUT', '/channels', { body: { channels: [{ id: 'chan_web', enabled: true }] } });
      expect(gone.status).toBe(404);
    } finally {
      await changed.close();
    }
  });
});
