import { afterEach, describe, expect, it } from 'vitest';
import type { DisplaySettings } from '../../src/config/display-settings.js';
import { boardRequests, boardScreen } from '../../src/dashboard/shell/crit-notice.js';
import { resourceKey } from '../../src/dashboard/state/resources.js';
import { afterARefresh, type DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { until } from '../helpers/until.js';
import { routedModel } from '../helpers/routed-model.js';

/**
 * The config's `notify` (issue 39, be told): a CRIT that appears on the overview while another
 * screen is shown rings the bell or sends an OSC 9 notification; on the overview itself, and with
 * notify off (the default), nothing is written. The CRIT is a workload routed to a model whose
 * file then goes missing, on the real server.
 */
const suite = setupScreenSuite();
const display = (notify: DisplaySettings['notify']): DisplaySettings => ({
  theme: 'dark',
  aliases: {},
  keys: {},
  screenPrefs: {},
  notify,
});

const model = routedModel(() => suite.server);
afterEach(async () => {
  await model.mendIfBroken();
});

/** Every resource of the overview has answered once: the board the next CRIT is compared with. */
function boardRead(d: DashboardHarness) {
  const board = boardScreen(d.deps.screens)!;
  return until('the overview board read in the background', () =>
    boardRequests(board, d.deps.ui).every((r) => d.deps.resources.getState().entries[resourceKey(r)]?.fetchedAt),
  );
}

const OSC9 = '\x1b]9;appliance-admin: CRIT on the overview: Model Mistral 7B Instruct\x07';

describe('notify: a new CRIT while another screen is shown', () => {
  it('osc9: the notification is written and the status line says it, on the models screen', async () => {
    const d = suite.render({ screen: 'models', display: display('osc9') });
    await d.waitForText('Mistral 7B Instruct');
    await boardRead(d);
    expect(d.notices).toEqual([]);
    await model.break();
    await until('the notification', () => d.notices.length > 0);
    expect(d.notices).toEqual([OSC9]);
    await d.waitForText('CRIT on the overview: Model Mistral 7B Instruct');
  }, 30_000);

  it('bell: not while the overview shows the CRIT itself; once on another screen, a new one rings', async () => {
    const d = suite.render({ screen: 'overview', display: display('bell') });
    await d.waitForText(/Nothing needs attention|things? need/);
    await model.break();
    await d.waitForText(/CRIT\s+Model Mistral 7B Instruct/);
    await afterARefresh(d);
    expect(d.notices).toEqual([]);
    await d.press('tab');
    await d.waitFor((f) => f.includes('[connectors]'), 'the connectors screen');
    await model.mend();
    // cleared, then back: a new CRIT
    await until('the board without the CRIT', async () => {
      await afterARefresh(d);
      const models =
        d.deps.resources.getState().entries[
          resourceKey(boardRequests(boardScreen(d.deps.screens)!, d.deps.ui).find((r) => r.id === 'models')!)
        ];
      return (
        (models?.data as { data: { id: string; state: string }[] })?.data.find((m) => m.id === 'mistral-7b')?.state ===
        'present'
      );
    });
    expect(d.notices).toEqual([]);
    await model.break();
    await until('the bell', () => d.notices.length > 0);
    expect(d.notices).toEqual(['\x07']);
  }, 40_000);

  it('off (the default): nothing is written, and the overview is not polled from another screen', async () => {
    const d = suite.render({ screen: 'models', display: display('off') });
    await d.waitForText('Mistral 7B Instruct');
    await model.break();
    await d.waitForText(/missing/);
    await afterARefresh(d);
    expect(d.notices).toEqual([]);
    const board = boardRequests(boardScreen(d.deps.screens)!, d.deps.ui);
    expect(d.deps.resources.getState().entries[resourceKey(board.find((r) => r.id === 'deployment')!)]).toBeUndefined();
  }, 30_000);
});
