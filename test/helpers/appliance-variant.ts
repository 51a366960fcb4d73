import { createServer, type Server } from 'node:http';
import { request } from 'undici';

/**
 * "Another appliance": a loopback HTTP front for the real test server that answers the way a
 * different implementation might (camelCase, bare arrays, vendor fields, no GET /session, its
 * own JWT credentials). Everything else is the real server's answer.
 */
export interface VariantOptions {
  target: string;
  camelCase?: boolean;
  bareArrays?: boolean;
  /** added to every object in a list */
  extraFields?: Record<string, unknown>;
  noSession?: boolean;
  /** incoming bearer -> the real server's bearer (an SSO appliance accepting JWTs) */
  tokenMap?: Record<string, string>;
}

const camel = (k: string) => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
function camelDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelDeep);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), camelDeep(x)]));
  return v;
}

export async function startVariant(
  o: VariantOptions,
): Promise<{ url: string; close(): Promise<void>; requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (o.noSession && req.url?.startsWith('/v1/admin/session')) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'NOT_FOUND' }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'if-none-match') headers[k] = v;
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    if (bearer && o.tokenMap?.[bearer]) headers.authorization = `Bearer ${o.tokenMap[bearer]}`;
    const up = await request(o.target + req.url, {
      method: req.method as 'GET',
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const text = await up.body.text();
    const out: Record<string, string> = {};
    for (const h of ['content-type', 'x-request-id'])
      if (typeof up.headers[h] === 'string') out[h] = up.headers[h] as string;
    let body = text;
    if (up.statusCode < 400 && /json/.test(out['content-type'] ?? '')) {
      let json = JSON.parse(text);
      if (o.extraFields && Array.isArray(json?.data))
        json.data = json.data.map((x: object) => ({ ...x, ...o.extraFields }));
      if (o.bareArrays && Array.isArray(json?.data) && 'has_more' in json) json = json.data;
      if (o.camelCase) json = camelDeep(json);
      body = JSON.stringify(json);
    }
    res.writeHead(up.statusCode, out);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
