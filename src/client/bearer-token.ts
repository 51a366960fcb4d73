/**
 * The bearer token: asked for before each request (a stored sign-in renews itself), put in the
 * request's headers and nowhere else.
 */

/** A fixed bearer token, or a function called before each request for a current one. */
export type TokenSource = string | (() => Promise<string>);

/** A failure to get a token (the stored sign-in expired, …) is thrown as is: nothing was sent. */
export async function requestHeaders(
  token: TokenSource,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const current = typeof token === 'string' ? token : await token();
  return { authorization: `Bearer ${current}`, accept: 'application/json, application/problem+json', ...extra };
}

/**
 * Whether a text holds the bearer token in use: a closure over it, for a scan that must not find it
 * in what it writes (an evidence pack), so that the token itself never leaves the client.
 */
export async function tokenMatcher(token: TokenSource): Promise<(text: string) => boolean> {
  const current = typeof token === 'string' ? token : await token();
  return (text) => current !== '' && text.includes(current);
}
