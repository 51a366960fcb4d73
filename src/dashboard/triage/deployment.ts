/** The deployment's components that are not healthy, or the appliance's own word that it is not. */
import type { Deployment } from '../../contract/index.js';
import type { ScreenLink } from '../kit/screen-api.js';
import { objects } from './answers.js';
import { CHAIN_COMPONENT, chainComponentLine } from './audit-chain-state.js';
import { NOW, type TriageLine } from './line.js';

/** The audit trail's copy off the host (docs/operations.md): its message starts with the lag. */
const FORWARD_COMPONENT = 'audit-forward';
const forwardComponentLine = (c: Deployment['components'][number], link: ScreenLink): TriageLine => ({
  key: `component:${c.name}`,
  severity: c.status === 'down' ? 'crit' : 'warn',
  what: 'Audit copy behind',
  reason: c.message ?? `${c.name} ${c.status}`,
  count: null,
  window: NOW,
  link,
});

export function deploymentLines(dep: Deployment | undefined): TriageLine[] {
  if (!dep) return [];
  const link: ScreenLink = { screen: 'deployment' };
  const bad = objects<Deployment['components'][number]>(dep.components).filter((c) => c.status !== 'healthy');
  const lines: TriageLine[] = bad.map((c) =>
    c.name === CHAIN_COMPONENT
      ? chainComponentLine(c)
      : c.name === FORWARD_COMPONENT
        ? forwardComponentLine(c, link)
        : {
            key: `component:${c.name}`,
            severity: c.status === 'down' ? 'crit' : 'warn',
            what: `Deployment ${dep.status}`,
            reason: `${c.name} ${c.status}${c.message ? `: ${c.message}` : ''}`,
            count: null,
            window: NOW,
            link,
          },
  );
  if (!lines.length && dep.status !== 'healthy') {
    lines.push({
      key: 'deployment',
      severity: 'warn',
      what: `Deployment ${dep.status}`,
      reason: `the appliance reports itself ${dep.status}`,
      count: null,
      window: NOW,
      link,
    });
  }
  return lines;
}
