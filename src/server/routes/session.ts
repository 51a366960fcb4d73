import { MUTATION_ACTIONS, mayMutate } from '../../contract/index.js';
import type { GroupFactory } from '../http/route-kit.js';

/** Read capabilities every role holds; mutation capabilities only for mutating roles. */
const READ_CAPABILITIES = ['audit.export', 'journal.export'];

export const sessionGroup: GroupFactory = () => ({
  handlers: {
    session: {
      allow: 'any role',
      audit: null,
      run: (_input, { principal }) => ({
        body: {
          subject: principal.subject,
          role: principal.role,
          expires_at: principal.expires_at,
          capabilities: [...READ_CAPABILITIES, ...(mayMutate(principal.role) ? MUTATION_ACTIONS : [])],
        },
      }),
    },
  },
});
