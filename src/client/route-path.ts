import { API_PREFIX, type RouteMeta } from '../contract/route-meta.js';

/** Builds `/v1/admin/gateway/keys/key_1/revoke?x=y` from a route and its inputs. */
export function buildPath(
  def: RouteMeta,
  prefix: string,
  params: Record<string, string> = {},
  query: Record<string, unknown> = {},
): string {
  const path = def.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined || v === '') throw new Error(`route ${def.name} needs parameter ${name}`);
    return encodeURIComponent(v);
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    qs.append(k, String(v));
  }
  const q = qs.toString();
  return `${prefix}${API_PREFIX}${path}${q ? `?${q}` : ''}`;
}
