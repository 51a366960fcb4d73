import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type * as z from 'zod';
import { sanitize } from '../text/sanitize.js';
import { UsageError } from './usage-error.js';
import { readConfigText } from './read.js';
import { DashboardConfig } from './schema.js';
import { configYamlValue, parseConfigYaml } from './yaml.js';

/**
 * Reads and checks the dashboard's config file: a file others could have changed (read.ts), YAML
 * beyond the limits (yaml.ts) or a mistake is one line naming the file and the key's path, thrown
 * as a UsageError (the CLI exits 2 and the dashboard does not start). Loaded only when a config
 * file exists (src/cli/dashboard-config-file.ts): zod's schema is built on import. `check` is the
 * dashboard's own look at what the file names (its screens, columns and keys: src/dashboard/shell/config-check.ts),
 * so that this room knows no screen.
 */
export function loadConfigFile(file: string, check: ConfigCheck = () => {}): DashboardConfig {
  // refused unless only its user could have written it; at most CONFIG_MAX_BYTES (read.ts)
  const text = readConfigText(file);
  const fail = (where: string, what: string) => new UsageError(`${file}: ${where}: ${what}`);
  const value = configYamlValue(parseConfigYaml(text, fail), fail);
  const parsed = DashboardConfig.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw fail(...describeIssue(issue));
  }
  checkAppliance(parsed.data, fail);
  check(parsed.data, fail);
  return withPathsResolved(parsed.data, dirname(file));
}

const keyPath = (path: readonly PropertyKey[]) => path.map((p) => sanitize(String(p), 60)).join('.') || '(top)';

/** Where and what, from zod's first issue; never the value (it could be a secret put in the wrong key). */
function describeIssue(issue: z.core.$ZodIssue): [string, string] {
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(issue.path);
    return [
      keyPath([...issue.path, issue.keys[0]]),
      `unknown key${known.length ? ` (the keys here are: ${known.join(', ')})` : ''}`,
    ];
  }
  if (issue.code === 'invalid_key') return [keyPath(issue.path), issue.issues[0]?.message ?? issue.message];
  return [keyPath(issue.path), issue.message];
}

/** The keys the schema allows in the object at `path`, for the message about one it does not. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let s: z.core.$ZodType = DashboardConfig;
  for (const step of [...path, null]) {
    const def = s._zod.def as z.core.$ZodTypeDef & {
      innerType?: z.core.$ZodType;
      shape?: Record<string, z.core.$ZodType>;
      keyType?: z.core.$ZodType;
      valueType?: z.core.$ZodType;
    };
    if (def.innerType) s = def.innerType;
    const inner = s._zod.def as typeof def & { entries?: Record<string, string> };
    if (step === null) {
      if (inner.shape) return Object.keys(inner.shape);
      const keys = inner.keyType?._zod.def as { entries?: Record<string, string> } | undefined;
      return keys?.entries ? Object.values(keys.entries) : [];
    }
    const next = inner.shape?.[String(step)] ?? inner.valueType;
    if (!next) return [];
    s = next;
  }
  return [];
}

/** A mistake found in the file: where (the key's path) and what; thrown as it is. */
export type ConfigFault = (where: string, what: string) => Error;
/** A look at the parsed file that throws `fail(where, what)` for what it cannot use. */
export type ConfigCheck = (config: DashboardConfig, fail: ConfigFault) => void;

/** The default appliance is one of the appliances. */
function checkAppliance(c: DashboardConfig, fail: ConfigFault): void {
  const appliance = c['default-appliance'];
  if (appliance !== undefined && !c.appliances?.[appliance])
    throw fail('default-appliance', `no appliance "${appliance}" under appliances`);
}

/** `~/x` is in the home folder; a relative path is beside the config file. */
function withPathsResolved(c: DashboardConfig, base: string): DashboardConfig {
  const at = (p: string | undefined) =>
    p === undefined ? undefined : resolve(base, p.replace(/^~(?=\/|$)/, homedir()));
  const appliances = Object.fromEntries(
    Object.entries(c.appliances ?? {}).map(([name, a]) => [
      name,
      { ...a, 'token-file': at(a['token-file']), 'ca-file': at(a['ca-file']), 'audit-key': at(a['audit-key']) },
    ]),
  );
  return { ...c, appliances, 'export-folder': at(c['export-folder']) };
}
