import type { GroupFactory } from '../http/route-kit.js';

/** With --demo: seeds demo history once and runs the traffic generator. */
export const demoGroup: GroupFactory = () => ({ handlers: {} });
