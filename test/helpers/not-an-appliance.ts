import type { Reply } from './hostile-server.js';

/**
 * Answers from servers that are not an appliance, for startHostile().set('*', …): a web server's
 * default page, plain text, unrelated JSON, a redirect to a sign-in proxy. Each is what a real
 * peer sends when --url points at the wrong thing.
 */

/** nginx's default page, as it answers every path with 200 text/html. */
export const NGINX_WELCOME = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and working.</p>
</body>
</html>
`;

export const answer =
  (status: number, headers: Record<string, string>, body: string): Reply =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

export const nginxWelcome = (): Reply => answer(200, { 'content-type': 'text/html' }, NGINX_WELCOME);

export const plainText = (body = 'OK\n'): Reply => answer(200, { 'content-type': 'text/plain; charset=utf-8' }, body);

/** JSON that parses fine but is no answer of this API (a health check, another service). */
export const unrelatedJson = (value: unknown = { hello: 'world' }): Reply =>
  answer(200, { 'content-type': 'application/json' }, JSON.stringify(value));

/** A redirect with an empty body, as a sign-in proxy sends to a request without its cookie. */
export const redirect = (location: string, status = 302): Reply =>
  answer(status, { location, 'content-length': '0' }, '');
