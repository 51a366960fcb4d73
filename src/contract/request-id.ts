/**
 * A request id as the appliance writes it (`req_…`), without zod: the audit screen checks its
 * filter field with this at no start-up cost, and the contract's `RequestId` is built from it.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
export const REQUEST_ID_MAX = 100;

export const isRequestId = (v: string): boolean => v.length <= REQUEST_ID_MAX && REQUEST_ID_PATTERN.test(v);
