import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { request } from 'undici';

/**
 * What a real appliance would not send: a loopback node:http server that answers chosen API
 * paths with a scripted fault (stall, trickle, reset, junk, huge, a proxy's HTML page) and
 * passes everything else through to a real server, so the rest of the dashboard keeps working.
 */
export type Reply = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface HostileServer {
  /** http://127.0.0.1:PORT, or the host given (the API under /v1/admin) */
  url: string;
  /** answers `path` (after /v1/admin, no query; '*' for every path) with `reply`; null restores */
  set(path: string, reply: Reply | null): void;
  clear(): void;
  /** "GET /channels", in arrival order */
  requests: string[];
  /** requests whose path starts with `path`, e.g. count('GET /channels') */
  count(prefix: string): number;
  close(): Promise<void>;
}

const API = '/v1/admin';

/** `host`: the address to listen on (default 127.0.0.1; another one to test a non-loopback URL). */
export async function startHostile(o: { upstream?: string; host?: string } = {}): Promise<HostileServer> {
  const replies = new Map<string, Reply>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (req, res) => {
    const url = req.url ?? '/';
    const path = (url.startsWith(API) ? url.slice(API.length) : url).split('?')[0] || '/';
    requests.push(`${req.method} ${path}`);
    const reply = replies.get(path) ?? replies.get('*');
    try {
      if (reply) return await reply(req, res);
      if (o.upstream) return await passThrough(o.upstream, req, res);
      json({ type: 'about:blank', title: 'Not Found', status: 404, code: 'SVC-ADMIN-404' }, 404)(req, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    set: (path, reply) => (reply ? replies.set(path, reply) : replies.delete(path)),
    clear: () => replies.clear(),
    requests,
    count: (prefix) => requests.filter((r) => r.startsWith(prefix)).length,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

async function passThrough(upstream: string, req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && !['host', 'connection', 'if-none-match'].includes(k)) headers[k] = v;
  const up = await request(upstream + (req.url ?? '/'), {
    method: req.method as 'GET',
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  const body = Buffer.from(await up.body.arrayBuffer());
  const out: Record<string, string> = {};
  for (const h of [
    'content-type',
    'x-request-id',
    'content-disposition',
    'audit-checkpoint',
    'audit-export-statement',
    'audit-export-filtered',
  ])
    if (typeof up.headers[h] === 'string') out[h] = up.headers[h] as string;
  res.writeHead(up.statusCode, out);
  res.end(body);
}

/** The value as JSON (or `raw` text as it is) with a status. */
export const json =
  (value: unknown, status = 200, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, {
      'content-type': status >= 400 ? 'application/problem+json' : 'application/json',
      ...headers,
    });
    res.end(typeof value === 'string' ? value : JSON.stringify(value));
  };

export const text =
  (status: number, contentType: string, body: string): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };

/** Never answers; the connection stays open. */
export const stall = (): Reply => () => undefined;

/** Sends the headers and part of the body, then goes silent. */
export const stallBody =
  (body: string): Reply =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.write(body.slice(0, Math.floor(body.length / 2)));
  };

/** A valid answer, `bytes` at a time every `everyMs`: never silent long enough for an idle timeout. */
export const trickle =
  (body: string, everyMs = 50, bytes = 1): Reply =>
  (_req, res) =>
    new Promise<void>((done) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      let at = 0;
      const t = setInterval(() => {
        if (res.destroyed || at >= body.length) {
          clearInterval(t);
          if (!res.destroyed) res.end();
          return done();
        }
        res.write(body.slice(at, at + bytes));
        at += bytes;
      }, everyMs);
      res.on('close', () => {
        clearInterval(t);
        done();
      });
    });

/** Promises a whole body, sends half, and resets the connection. */
export const resetMidBody =
  (body: string): Reply =>
  (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.write(body.slice(0, Math.floor(body.length / 2)), () => {
      req.socket.resetAndDestroy();
    });
  };

/** `size` bytes of a JSON string, with or without Content-Length (chunked). */
export const huge =
  (size: number, declared: boolean): Reply =>
  (_req, res) =>
    new Promise<void>((done) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(declared ? { 'content-length': String(size) } : {}),
      });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (!res.destroyed && sent < size) {
          const n = Math.min(chunk.length, size - sent);
          const head = sent === 0 ? Buffer.from('"') : null;
          const piece = head ? Buffer.concat([head, chunk.subarray(0, n - 1)]) : chunk.subarray(0, n);
          sent += n;
          if (sent >= size) piece[piece.length - 1] = 0x22; // the closing quote
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
        done();
      };
      res.on('close', done);
      pump();
    });

/** What nginx in front of a stopped appliance answers. */
export const NGINX_502 = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n`;
