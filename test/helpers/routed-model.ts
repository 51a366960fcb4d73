import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { modelCatalog } from '../../src/server/models/catalog.js';
import type { TestServer } from './server.js';
import { until } from './until.js';

/**
 * A CRIT on demand: the embed workload is routed to mistral-7b and its file removed (the overview's
 * "missing from the appliance, but routed to"), then the file written back. `server` is asked for
 * when used: a suite's server starts after the file is read.
 */
export function routedModel(server: () => TestServer) {
  const file = () => server().config.models.find((m) => m.id === 'mistral-7b')!.path;
  /**
   * The model's state as the appliance lists it. The appliance looks at its files at most every 5 s;
   * the test's server runs in this process, so it is asked to look now rather than waited for.
   */
  const listed = (state: string) =>
    until(`mistral-7b listed ${state}`, async () => {
      modelCatalog(server().config).list({ fresh: true });
      const models = (await server().call('GET', '/models')).json.data as { id: string; state: string }[];
      return models.find((m) => m.id === 'mistral-7b')?.state === state;
    });
  const mend = async () => {
    writeFileSync(file(), Buffer.alloc(4096));
    await listed('present');
  };
  return {
    async break() {
      expect((await server().call('PUT', '/routing/embed', { body: { model_id: 'mistral-7b' } })).status).toBe(200);
      rmSync(file());
      await listed('missing');
    },
    mend,
    /** for afterEach: the file back if a test left it removed */
    async mendIfBroken() {
      if (!existsSync(file())) await mend();
    },
  };
}
