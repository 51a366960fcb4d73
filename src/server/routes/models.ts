import { ApiError } from '../errors.js';
import type { GroupFactory } from '../http/route-kit.js';

const todo = { run: () => { throw new ApiError(503, 'not implemented yet'); } };

export const modelsGroup: GroupFactory = () => ({
  handlers: {
    listModels: todo,
    activateModel: todo,
    listRouting: todo,
    setRouting: todo,
  },
});
