import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshot, startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';
import { guessFromName, modelIdFromEntry } from '../../src/server/models/file-names.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const models = async () => {
  const res = await s.call('GET', '/models', { role: 'auditor' });
  expect(res.status).toBe(200);
  return res.json.data as { id: string; state: string; active: boolean; size_bytes: number | null }[];
};
const activeIds = async () => (await models()).filter((m) => m.active).map((m) => m.id);
const lastAudit = (action: string) =>
  s.server.db.prepare('SELECT * FROM audit WHERE action = ? ORDER BY seq DESC LIMIT 1').get(action) as Record<
    string,
    unknown
  >;

describe('models', () => {
  it('lists configured models with their state on disk, size and exactly one active', async () => {
    const list = await models();
    expect(list.map((m) => [m.id, m.state, m.size_bytes])).toEqual([
      ['llama-3.1-8b', 'present', 2048],
      ['mistral-7b', 'present', 4096],
      ['ghost-70b', 'missing', null],
    ]);
    expect(await activeIds()).toEqual(['llama-3.1-8b']); // config.default_model
  });

  it('pages the list', async () => {
    const first = await s.call('GET', '/models?limit=2');
    expect(first.json.data).toHaveLength(2);
    expect(first.json.has_more).toBe(true);
    const rest = await s.call('GET', `/models?limit=2&after=${first.json.next_cursor}`);
    expect(rest.json.data.map((m: { id: string }) => m.id)).toEqual(['ghost-70b']);
    expect(rest.json.has_more).toBe(false);
  });

  it('activates another present model, reports the previous one and audits it', async () => {
    const res = await s.call('POST', '/models/activate', { role: 'app_owner', body: { model_id: 'mistral-7b' } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ model_id: 'mistral-7b', active: true, previous_model_id: 'llama-3.1-8b' });
    expect(await activeIds()).toEqual(['mistral-7b']);
    const audit = lastAudit('model.activate');
    expect(audit).toMatchObject({
      outcome: 'success',
      target_type: 'model',
      target_id: 'mistral-7b',
      actor_subject: 'olga-owner',
    });
    expect(JSON.parse(audit.details as string)).toEqual({ previous_model_id: 'llama-3.1-8b' });
  });

  it('accepts activating the model that is already active', async () => {
    const res = await s.call('POST', '/models/activate', { body: { model_id: 'mistral-7b' } });
    expect(res.status).toBe(200);
    expect(res.json.previous_model_id).toBe('mistral-7b');
    expect(await activeIds()).toEqual(['mistral-7b']);
  });

  it('refuses a model that is not present with 422 and changes nothing', async () => {
    const before = snapshot(s, 'app_state');
    const res = await s.call('POST', '/models/activate', { body: { model_id: 'ghost-70b' } });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('SVC-ADMIN-422');
    expect(res.json.detail).toMatch(/only models present on the appliance can be activated/);
    expect(snapshot(s, 'app_state')).toEqual(before);
    expect(await activeIds()).toEqual(['mistral-7b']);
    expect(lastAudit('model.activate')).toMatchObject({ outcome: 'failed', status: 422, target_id: 'ghost-70b' });
  });

  it('answers 404 for an unknown model and 400 for unknown fields', async () => {
    const unknown = await s.call('POST', '/models/activate', { body: { model_id: 'nope' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('SVC-ADMIN-404');
    const extra = await s.call('POST', '/models/activate', { body: { model_id: 'llama-3.1-8b', force: true } });
    expect(extra.status).toBe(400);
    expect(await activeIds()).toEqual(['mistral-7b']);
  });

  it('leaves exactly one model active after concurrent activations', async () => {
    const ids = ['llama-3.1-8b', 'mistral-7b'];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s.call('POST', '/models/activate', { body: { model_id: ids[i % 2] } })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const active = await activeIds();
    expect(active).toHaveLength(1);
    const stored = s.server.db.prepare("SELECT value FROM app_state WHERE key = 'active_model'").pluck().get();
    expect(active[0]).toBe(stored);
  });
});

describe('routing', () => {
  const routing = async () =>
    (await s.call('GET', '/routing', { role: 'auditor' })).json.data as Record<string, unknown>[];
  const entry = async (w: string) => (await routing()).find((e) => e.workload === w)!;

  it('lists every configured workload with its initial model', async () => {
    const list = await routing();
    expect(list.map((e) => [e.workload, e.model_id])).toEqual([
      ['chat', null],
      ['summarize', 'mistral-7b'],
      ['embed', null],
    ]);
    expect(list[1]).toMatchObject({ effective_model_id: 'mistral-7b', updated_at: null, updated_by: null });
  });

  it('a null model follows the active model', async () => {
    await s.call('POST', '/models/activate', { body: { model_id: 'llama-3.1-8b' } });
    expect(await entry('chat')).toMatchObject({ model_id: null, effective_model_id: 'llama-3.1-8b' });
    await s.call('POST', '/models/activate', { body: { model_id: 'mistral-7b' } });
    expect(await entry('chat')).toMatchObject({ model_id: null, effective_model_id: 'mistral-7b' });
    expect(await entry('summarize')).toMatchObject({ effective_model_id: 'mistral-7b' });
  });

  it('sets a workload to a present model and back to null, audited with from and to', async () => {
    const set = await s.call('PUT', '/routing/chat', { body: { model_id: 'llama-3.1-8b' } });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      workload: 'chat',
      model_id: 'llama-3.1-8b',
      effective_model_id: 'llama-3.1-8b',
      updated_by: 'alice-admin',
    });
    expect(Date.parse(set.json.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(await entry('chat')).toMatchObject({ model_id: 'llama-3.1-8b', effective_model_id: 'llama-3.1-8b' });
    const audit = lastAudit('routing.update');
    expect(audit).toMatchObject({ outcome: 'success', target_type: 'routing', target_id: 'chat' });
    expect(JSON.parse(audit.details as string)).toEqual({ from: null, to: 'llama-3.1-8b' });

    const back = await s.call('PUT', '/routing/chat', { body: { model_id: null } });
    expect(back.json).toMatchObject({ model_id: null, effective_model_id: 'mistral-7b' });
    expect(JSON.parse(lastAudit('routing.update').details as string)).toEqual({ from: 'llama-3.1-8b', to: null });
  });

  it('answers 404 for an unknown workload or model, 422 for a model missing on disk, and stores nothing', async () => {
    const before = snapshot(s, 'routing');
    const noWorkload = await s.call('PUT', '/routing/translate', { body: { model_id: 'mistral-7b' } });
    expect(noWorkload.status).toBe(404);
    const noModel = await s.call('PUT', '/routing/chat', { body: { model_id: 'gpt-17' } });
    expect(noModel.status).toBe(404);
    expect(noModel.json).toMatchObject({ code: 'SVC-ADMIN-404', detail: 'unknown model gpt-17' });
    const missing = await s.call('PUT', '/routing/chat', { body: { model_id: 'ghost-70b' } });
    expect(missing.status).toBe(422);
    expect(missing.json.code).toBe('SVC-ADMIN-422');
    const noBody = await s.call('PUT', '/routing/chat', { body: {} });
    expect(noBody.status).toBe(400);
    expect(snapshot(s, 'routing')).toEqual(before);
  });
});

describe('auditor', () => {
  it('may not activate or route: 403, nothing changes, the attempt is audited', async () => {
    const state = snapshot(s, 'app_state');
    const routes = snapshot(s, 'routing');
    const activate = await s.call('POST', '/models/activate', { role: 'auditor', body: { model_id: 'llama-3.1-8b' } });
    expect(activate.status).toBe(403);
    expect(activate.json.code).toBe('SVC-ADMIN-403');
    const route = await s.call('PUT', '/routing/chat', { role: 'auditor', body: { model_id: 'llama-3.1-8b' } });
    expect(route.status).toBe(403);
    expect(snapshot(s, 'app_state')).toEqual(state);
    expect(snapshot(s, 'routing')).toEqual(routes);
    expect(lastAudit('model.activate')).toMatchObject({
      outcome: 'denied',
      status: 403,
      actor_role: 'auditor',
      target_type: 'model',
      target_id: 'llama-3.1-8b',
    });
    expect(lastAudit('routing.update')).toMatchObject({ outcome: 'denied', status: 403, target_id: 'chat' });
  });
});

describe('models directory', () => {
  it('names models from file names and sees new files when activating', async () => {
    const t = await startTestServer({
      config: (root) => {
        const dir = join(root, 'models');
        mkdirSync(join(dir, 'Qwen2.5-0.5B-Instruct', 'sub'), { recursive: true });
        writeFileSync(join(dir, 'Qwen2.5-0.5B-Instruct', 'model.safetensors'), Buffer.alloc(1000));
        writeFileSync(join(dir, 'Qwen2.5-0.5B-Instruct', 'sub', 'tokenizer.json'), Buffer.alloc(24));
        writeFileSync(join(dir, 'Meta-Llama-3.1-70B-Instruct.Q4_K_M.gguf'), Buffer.alloc(512));
        writeFileSync(join(dir, '.partial.gguf'), Buffer.alloc(1));
        // the fixture's two configured model files live in the same folder: listed once, as configured
        return fixtureConfig(root, { models_dir: dir, default_model: undefined });
      },
    });
    try {
      const list = (await t.call('GET', '/models')).json.data as Record<string, unknown>[];
      expect(list.map((m) => m.id)).toEqual([
        'llama-3.1-8b',
        'mistral-7b',
        'ghost-70b',
        'Meta-Llama-3.1-70B-Instruct.Q4_K_M',
        'Qwen2.5-0.5B-Instruct',
      ]);
      expect(list[3]).toMatchObject({
        family: 'llama',
        parameters: 70e9,
        quantization: 'Q4_K_M',
        size_bytes: 512,
        state: 'present',
        active: false,
      });
      expect(list[4]).toMatchObject({
        family: 'qwen',
        parameters: 5e8,
        quantization: null,
        size_bytes: 1024,
        state: 'present',
      });
      // no default model configured: the first present model is active
      expect(list.filter((m) => m.active).map((m) => m.id)).toEqual(['llama-3.1-8b']);

      // a file copied in just now can be activated at once, without waiting for the list cache
      writeFileSync(join(t.config.models_dir!, 'phi-3-mini-4k-instruct-q8_0.gguf'), Buffer.alloc(64));
      const res = await t.call('POST', '/models/activate', { body: { model_id: 'phi-3-mini-4k-instruct-q8_0' } });
      expect(res.status).toBe(200);
      expect(res.json.previous_model_id).toBe('llama-3.1-8b');
    } finally {
      await t.close();
    }
  });

  it('guesses family, parameters and quantization from common names', () => {
    expect(guessFromName('llama-3.1-8b-instruct.Q4_K_M.gguf')).toEqual({
      family: 'llama',
      parameters: 8e9,
      quantization: 'Q4_K_M',
    });
    expect(guessFromName('mistral-7b-q5.gguf')).toEqual({ family: 'mistral', parameters: 7e9, quantization: 'Q5' });
    expect(guessFromName('mixtral-8x7b-instruct-v0.1.IQ2_XXS.gguf')).toEqual({
      family: 'mixtral',
      parameters: null,
      quantization: 'IQ2_XXS',
    });
    expect(guessFromName('codellama-13b.F16.gguf')).toEqual({
      family: 'codellama',
      parameters: 13e9,
      quantization: 'F16',
    });
    expect(guessFromName('SmolLM2-135M-Instruct-Q8_0.gguf')).toEqual({
      family: 'smollm',
      parameters: 135e6,
      quantization: 'Q8_0',
    });
    expect(guessFromName('weights.bin')).toEqual({ family: 'unknown', parameters: null, quantization: null });
    expect(modelIdFromEntry('llama-3.1-8b-instruct.Q4_K_M.gguf', false)).toBe('llama-3.1-8b-instruct.Q4_K_M');
    expect(modelIdFromEntry('llama-3.1-8b', false)).toBe('llama-3.1-8b');
    expect(modelIdFromEntry('llama-3.1-8b', true)).toBe('llama-3.1-8b');
  });
});

describe('persistence', () => {
  it('keeps the active model and routing changes across a restart; config does not overwrite them', async () => {
    const first = await startTestServer();
    await first.call('POST', '/models/activate', { body: { model_id: 'mistral-7b' } });
    await first.call('PUT', '/routing/summarize', { body: { model_id: 'llama-3.1-8b' } });
    await first.close();
    const again = await startTestServer({ dataDir: first.dataDir });
    try {
      const list = (await again.call('GET', '/models')).json.data as { id: string; active: boolean }[];
      expect(list.filter((m) => m.active).map((m) => m.id)).toEqual(['mistral-7b']);
      const summarize = (await again.call('GET', '/routing')).json.data.find(
        (e: { workload: string }) => e.workload === 'summarize',
      );
      expect(summarize).toMatchObject({ model_id: 'llama-3.1-8b', updated_by: 'alice-admin' });
    } finally {
      await again.close();
    }
  });
});
