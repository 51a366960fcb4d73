import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpPeer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** TCP connections accepted so far */
  connections(): number;
  /** request paths received so far, in order */
  paths: string[];
  /** Host headers received so far, in order */
  hosts: string[];
  close(): Promise<void>;
}

/** A plain node:http server on 127.0.0.1 that records every connection and request it gets. */
export async function startHttpPeer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<HttpPeer> {
  let connections = 0;
  const paths: string[] = [];
  const hosts: string[] = [];
  const server: Server = createServer((req, res) => {
    paths.push(req.url ?? '');
    hosts.push(req.headers.host ?? '');
    handler(req, res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    paths,
    hosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
