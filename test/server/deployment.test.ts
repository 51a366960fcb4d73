import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertGatewayKeys } from '../helpers/seed-gateway-keys.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { detectAccelerators } from '../../src/server/host/accelerators.js';
import { formatBytes } from '../../src/server/host/units.js';
import { VERSION } from '../../src/contract/version.js';
import { migrations } from '../../src/server/db/migrations.js';

const LATEST_SCHEMA = Math.max(...migrations.map((m) => m.version));

/** Requirements every test host meets, so status only reflects what a test changes. */
const modest = { cpus: 1, memory_bytes: 0, disk_free_bytes: 0, accelerators: 0 };

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ config: (root) => fixtureConfig(root, { requirements: modest }) });
});
afterAll(async () => {
  await s?.close();
});

const component = (body: { components: { name: string }[] }, name: string) =>
  body.components.find((c) => c.name === name);

describe('deployment status', () => {
  it('reports real facts of this host', async () => {
    const res = await s.call('GET', '/deployment', { role: 'auditor' });
    expect(res.status).toBe(200);
    const { host } = res.json;
    expect(host.cpus).toBe(os.availableParallelism());
    expect(host.memory_bytes).toBe(os.totalmem());
    expect(host.hostname).toBe(os.hostname());
    expect(host.os).toContain(os.release());
    const fs = statfsSync(s.dataDir);
    expect(Math.abs(host.disk_free_bytes - fs.bavail * fs.bsize)).toBeLessThan(256 * 2 ** 20);
    expect(host.accelerators).toEqual(detectAccelerators());
    expect(res.json.version).toBe(VERSION);
    expect(Date.now() - Date.parse(res.json.checked_at)).toBeLessThan(10_000);
  });

  it('lists healthy components and is healthy when they all are', async () => {
    const { json } = await s.call('GET', '/deployment');
    expect(json.components.map((c: { name: string }) => c.name)).toEqual([
      'admin-api',
      'database',
      'host',
      'model-store',
      'gateway',
      'ingestion',
      'audit-chain',
      'background-tasks',
    ]);
    expect(component(json, 'audit-chain')).toMatchObject({ status: 'healthy', message: 'checkpoints signed' });
    expect(component(json, 'background-tasks')).toMatchObject({ status: 'healthy', message: 'none failing' });
    const sqlite = s.server.db.prepare('SELECT sqlite_version()').pluck().get();
    expect(component(json, 'database')).toMatchObject({ status: 'healthy', version: sqlite });
    expect(component(json, 'admin-api')).toMatchObject({ status: 'healthy', version: VERSION });
    expect(component(json, 'model-store')).toMatchObject({ status: 'healthy' });
    expect(component(json, 'model-store')!).toHaveProperty('message', expect.stringContaining('llama-3.1-8b'));
    expect(json.status).toBe('healthy');
  });

  it('answers 304 to a poll while nothing changed, also at the next 2 s poll', async () => {
    const first = await s.call('GET', '/deployment');
    const again = await s.call('GET', '/deployment', { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
    // free disk space changes with every write to the data directory (here: the server's own)
    writeFileSync(join(s.dataDir, 'poll-gap.bin'), Buffer.alloc(1 << 20));
    // the next poll, 2.1 s later by the server's clock (only Date is faked: timers and sockets run)
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(Date.now() + 2100);
      const next = await s.call('GET', '/deployment', { headers: { 'if-none-match': String(first.headers.etag) } });
      expect(next.status).toBe(304);
    } finally {
      vi.useRealTimers();
    }
  });

  it('is degraded when a connector last sync failed', async () => {
    // the state a failed ingestion of the remote CRM source leaves behind
    const db = s.server.db;
    const saved = db.prepare("SELECT * FROM connector_state WHERE connector_id = 'conn_crm'").get();
    db.prepare(
      "INSERT OR REPLACE INTO connector_state (connector_id, state, last_sync_at, last_sync_status) VALUES ('conn_crm', 'error', ?, 'failed')",
    ).run(new Date().toISOString());
    try {
      const { json } = await s.call('GET', '/deployment');
      expect(component(json, 'ingestion')).toMatchObject({
        status: 'degraded',
        message: expect.stringContaining('conn_crm'),
      });
      expect(json.status).toBe('degraded');
    } finally {
      db.prepare("DELETE FROM connector_state WHERE connector_id = 'conn_crm'").run();
      if (saved)
        db.prepare(
          'INSERT INTO connector_state VALUES (@connector_id, @state, @last_sync_at, @last_sync_status, @last_sync_job_id, @last_sync_items)',
        ).run(saved);
    }
  });

  it('is degraded when the active model files are gone', async () => {
    const t = await startTestServer({
      config: (root) => {
        const cfg = fixtureConfig(root, { requirements: modest });
        rmSync(cfg.models[0].path); // the default model
        return cfg;
      },
    });
    try {
      const { json } = await t.call('GET', '/deployment');
      expect(component(json, 'model-store')).toMatchObject({
        status: 'degraded',
        message: expect.stringMatching(/llama-3.1-8b is missing/),
      });
      expect(json.status).toBe('degraded');
    } finally {
      await t.close();
    }
  });

  it('is installing while no model is present', async () => {
    const t = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          requirements: modest,
          models: [],
          default_model: undefined,
          models_dir: join(root, 'empty-models'),
        }),
    });
    try {
      const dep = await t.call('GET', '/deployment');
      expect(dep.json.status).toBe('installing');
      const plan = await t.call('GET', '/deployment/install-plan');
      const models = plan.json.steps.find((st: { id: string }) => st.id === 'models');
      expect(models).toMatchObject({ status: 'pending' });
      expect(models.detail).toContain(`copy model files to ${t.config.models_dir}`);
      expect(models.detail).toContain('does not download');
    } finally {
      await t.close();
    }
  });
});

describe('install plan', () => {
  it('checks requirements against the real host and blocks when it falls short', async () => {
    const t = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          requirements: { cpus: 10_000, memory_bytes: 1024 * 2 ** 30 * 1024, disk_free_bytes: 0, accelerators: 0 },
        }),
    });
    try {
      const res = await t.call('GET', '/deployment/install-plan', { role: 'auditor' });
      expect(res.status).toBe(200);
      const req = Object.fromEntries(res.json.requirements.map((r: { name: string }) => [r.name, r]));
      expect(req.cpus).toEqual({
        name: 'cpus',
        required: '10000',
        actual: String(os.availableParallelism()),
        ok: false,
      });
      expect(req.memory).toEqual({
        name: 'memory',
        required: '1048576.0 GiB',
        actual: formatBytes(os.totalmem()),
        ok: false,
      });
      expect(req.disk_free).toMatchObject({ required: '0 B', ok: true });
      expect(req.accelerators).toMatchObject({ required: '0', ok: true });
      expect(req.node).toEqual({ name: 'node', required: '20.18', actual: process.versions.node, ok: true });
      expect(req.sqlite).toMatchObject({
        ok: true,
        actual: t.server.db.prepare('SELECT sqlite_version()').pluck().get(),
      });

      const step = res.json.steps.find((st: { id: string }) => st.id === 'host-requirements');
      expect(step.status).toBe('blocked');
      expect(step.detail).toContain('cpus');
      expect(step.detail).toContain('memory');

      const dep = await t.call('GET', '/deployment');
      expect(component(dep.json, 'host')).toMatchObject({
        status: 'degraded',
        message: 'below requirements: cpus, memory',
      });
      expect(dep.json.status).toBe('degraded');
    } finally {
      await t.close();
    }
  });

  it('shows each install step from the real state of the appliance', async () => {
    const steps = async () =>
      Object.fromEntries(
        ((await s.call('GET', '/deployment/install-plan')).json.steps as { id: string; status: string }[]).map((st) => [
          st.id,
          st,
        ]),
      );
    const before = await steps();
    expect(Object.keys(before)).toEqual([
      'host-requirements',
      'database',
      'models',
      'connectors',
      'identity',
      'gateway-keys',
    ]);
    expect(before['host-requirements'].status).toBe('done');
    expect(before.database).toMatchObject({ status: 'done', detail: `schema version ${LATEST_SCHEMA} applied` });
    expect(before.models).toMatchObject({ status: 'done', detail: '2 of 3 model(s) present' });
    expect(before.connectors.status).toBe('done');
    expect(before.identity).toMatchObject({ status: 'pending', detail: expect.stringContaining('identity provider') });
    expect(before['gateway-keys'].status).toBe('pending');

    insertGatewayKeys(s.server.db, [
      { id: 'key_t', name: 't', prefix: 'p', secret_hash: 'h', created_at: new Date().toISOString() },
    ]);
    try {
      expect((await steps())['gateway-keys']).toMatchObject({ status: 'done', detail: '1 active key(s)' });
    } finally {
      s.server.db.prepare("DELETE FROM gateway_keys WHERE id = 'key_t'").run();
    }
  });
});

describe('accelerator detection', () => {
  it('reads NVIDIA from /proc and other GPUs from /sys, skipping virtual adapters', () => {
    const root = tempDir('aa-sysfs');
    const gpu = join(root, 'proc/driver/nvidia/gpus/0000:01:00.0');
    mkdirSync(gpu, { recursive: true });
    writeFileSync(join(gpu, 'information'), 'Model: \t\t NVIDIA A100-SXM4-80GB\nIRQ:   34\n');
    const card = (name: string, files: Record<string, string>) => {
      mkdirSync(join(root, 'sys/class/drm', name, 'device'), { recursive: true });
      for (const [f, v] of Object.entries(files))
        writeFileSync(join(root, 'sys/class/drm', name, 'device', f), `${v}\n`);
    };
    card('card0', { vendor: '0x10de', device: '0x20b2' }); // same NVIDIA GPU, already counted
    card('card1', { vendor: '0x1002', device: '0x73bf', mem_info_vram_total: String(16 * 2 ** 30) });
    card('card1-DP-1', { vendor: '0x1002' }); // a connector, not a device
    card('card2', { vendor: '0x1234', device: '0x1111' }); // QEMU display adapter
    expect(detectAccelerators(root)).toEqual([
      { name: 'NVIDIA A100-SXM4-80GB', kind: 'gpu', memory_bytes: null },
      { name: 'AMD GPU 0x73bf (card1)', kind: 'gpu', memory_bytes: 16 * 2 ** 30 },
    ]);

    const devOnly = tempDir('aa-dev');
    mkdirSync(join(devOnly, 'dev'));
    for (const n of ['nvidia0', 'nvidia1', 'nvidiactl', 'nvidia-uvm']) writeFileSync(join(devOnly, 'dev', n), '');
    expect(detectAccelerators(devOnly).map((a) => a.name)).toEqual(['NVIDIA GPU (nvidia0)', 'NVIDIA GPU (nvidia1)']);
    expect(detectAccelerators(tempDir('aa-none'))).toEqual([]);
  });
});

describe('settings', () => {
  it('shows the configuration in sections with every secret redacted', async () => {
    const t = await startTestServer({
      config: (root) => {
        const cfg = fixtureConfig(root, {
          sso: {
            issuer: 'https://login.example.invalid/realm',
            audience: 'appliance',
            role_claim: 'groups',
            subject_claim: 'sub',
            role_map: { 'it-ops': 'it_admin' },
            client_id: 'appliance-admin',
            client_secret: 'hunter2-secret',
          },
        });
        cfg.connectors[2].sources[0].url = 'https://svc:pa55word@crm.example.invalid/api?api_key=k3y-value&region=eu';
        return cfg;
      },
    });
    try {
      const res = await t.call('GET', '/settings', { role: 'auditor' });
      expect(res.status).toBe(200);
      for (const secret of ['hunter2-secret', 'pa55word', 'k3y-value']) expect(res.text).not.toContain(secret);
      const sections = Object.fromEntries(
        res.json.sections.map((x: { name: string; values: unknown }) => [x.name, x.values]),
      );
      expect(Object.keys(sections)).toEqual([
        'appliance',
        'connectors',
        'models',
        'workloads',
        'identity_test',
        'sso',
        'audit_forward',
        'requirements',
        'storage',
        'server',
      ]);
      expect(sections.sso).toMatchObject({
        configured: true,
        issuer: 'https://login.example.invalid/realm',
        audience: 'appliance',
        role_claim: 'groups',
        role_map: { 'it-ops': 'it_admin' },
        client_id: 'appliance-admin',
        client_secret: '[redacted]',
      });
      expect(sections.connectors.conn_crm.sources[0].url).toBe(
        'https://crm.example.invalid/api?api_key=REDACTED&region=REDACTED',
      );
      expect(sections.connectors.conn_docs).toMatchObject({
        kind: 'document-sharing',
        rbac_labels: ['staff'],
        sources: [{ id: 'src_docs', type: 'directory' }],
      });
      expect(sections.identity_test.allow_private_addresses).toBe(true);
      expect(sections.workloads).toEqual({
        chat: { initial_model_id: null },
        summarize: { initial_model_id: 'mistral-7b' },
        embed: { initial_model_id: null },
      });
      expect(sections.storage).toMatchObject({ data_dir: t.dataDir, schema_version: LATEST_SCHEMA });
      expect(sections.server).toMatchObject({ version: VERSION, node_version: process.versions.node });
    } finally {
      await t.close();
    }
  });
});
