import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api-client.js';
import { isLoopbackHost, plainHttpRefusal } from '../../src/client/transport-policy.js';
import { resolveConnection } from '../../src/cli/connection.js';

/** Only names that never leave this machine count as loopback for plain http with a bearer token. */
describe('which plain-http hosts are loopback', () => {
  it('a *.localhost name is not: whatever a resolver answers for it would get the token in clear', () => {
    for (const host of ['evil.localhost', 'a.b.localhost', 'EVIL.LOCALHOST.', 'localhost.localhost']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
    const url = 'http://evil.localhost:8080';
    expect(plainHttpRefusal(url, false)).toMatch(
      /^refusing plain http to evil\.localhost:8080: the token would cross the network unencrypted/,
    );
    expect(new ApiClient({ url, token: 'aat_x' }).insecureHttp).toBe(true);
    expect(() => resolveConnection({ url }, { APPLIANCE_ADMIN_TOKEN: 'aat_x' }, 'usage')).toThrow(
      /^refusing plain http to evil\.localhost:8080/,
    );
    expect(plainHttpRefusal(url, true)).toBeNull();
  });

  it('localhost, 127.0.0.0/8, ::1 and ::ffff:127.x still are', () => {
    for (const host of ['localhost', 'LOCALHOST.', '127.0.0.1', '127.255.0.9', '[::1]', '[::ffff:7f00:1]']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const url of ['http://localhost:8080', 'http://127.1.2.3', 'http://[::1]:1', 'http://[::ffff:127.0.0.1]:1']) {
      expect(plainHttpRefusal(url, false), url).toBeNull();
    }
    for (const host of ['128.0.0.1', '[::2]', 'localhost.evil.example', '0.0.0.0'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
