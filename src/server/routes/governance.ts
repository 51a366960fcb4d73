import { ApiError } from '../errors.js';
import type { GroupFactory } from '../http/route-kit.js';

const todo = { run: () => { throw new ApiError(503, 'not implemented yet'); } };

export const governanceGroup: GroupFactory = () => ({
  handlers: {
    listAudit: todo,
    exportAudit: todo,
    listJournal: todo,
    exportJournal: todo,
  },
});
