/** With nothing to attend to, the board says so, with the figures an operator glances at. */
import type { Connector, Deployment, Model, Summary, Usage } from '../../contract/index.js';
import type { ScreenLink } from '../kit/screen-api.js';
import { list, num, objects } from './answers.js';
import { LAST_DAY, LAST_HOUR, NOW, plural, type TriageLine } from './line.js';
import { answerOf, sourcesIn, type TriageInput, type TriageSource } from './sources.js';

export function headlineLines(input: TriageInput): TriageLine[] {
  const data = <T>(id: TriageSource): T | undefined => answerOf<T>(input, id);
  const ok = (
    key: string,
    what: string,
    reason: string,
    count: number | null,
    window: string,
    link: ScreenLink | null,
  ): TriageLine => ({ key, severity: 'ok', what, reason, count, window, link });
  const lines: TriageLine[] = [];
  const everything = sourcesIn(input).every((id) => input[id]?.state === 'ok');
  if (everything)
    lines.push(
      ok(
        'all-clear',
        'Nothing needs attention',
        'no failure, rejection or limit near on this appliance',
        null,
        NOW,
        null,
      ),
    );
  const dep = data<Deployment>('deployment');
  if (dep)
    lines.push(
      ok(
        'headline:deployment',
        `Deployment ${dep.status}`,
        `version ${dep.version}, ${plural(objects(dep.components).length, 'component')} healthy`,
        null,
        NOW,
        { screen: 'deployment' },
      ),
    );
  const connectors = list<Connector>(data('connectors'));
  if (data('connectors'))
    lines.push(
      ok(
        'headline:connectors',
        'Connectors',
        `${plural(connectors.length, 'connector')}, none failing`,
        connectors.length,
        NOW,
        { screen: 'connectors' },
      ),
    );
  const usage = list<Usage['data'][number]>(data('usage'));
  if (data('usage')) {
    const requests = usage.reduce((t, u) => t + num(u.requests), 0);
    lines.push(
      ok(
        'headline:usage',
        'Gateway',
        `${plural(requests, 'request')} from ${plural(usage.length, 'key')}, none rejected`,
        requests,
        LAST_HOUR,
        { screen: 'usage', extra: { range: 'hour' } },
      ),
    );
  }
  const failures = data<Summary>('failuresByError');
  if (failures)
    lines.push(
      ok('headline:agents', 'Agents', 'no failed step', 0, LAST_DAY, { screen: 'journal', extra: { range: '24h' } }),
    );
  const active = list<Model>(data('models')).find((m) => m.active);
  if (active)
    lines.push(
      ok('headline:model', 'Active model', `${active.name ?? active.id} (${active.state})`, null, NOW, {
        screen: 'models',
        select: active.id,
      }),
    );
  return lines;
}
