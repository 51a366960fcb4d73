import { BOUNDARY_CODE, ERROR_CODES } from '../contract/index.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface InvalidParam {
  name: string;
  reason: string;
}

/** An error that becomes an RFC 9457 problem+json answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: { code?: string; invalid_params?: InvalidParam[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
  }
  get code(): string {
    return this.options.code ?? ERROR_CODES[this.status as keyof typeof ERROR_CODES] ?? `SVC-ADMIN-${this.status}`;
  }
  toProblem(requestId: string) {
    return {
      type: 'about:blank',
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      code: this.code,
      detail: this.detail,
      request_id: requestId,
      ...(this.options.invalid_params?.length ? { invalid_params: this.options.invalid_params } : {}),
    };
  }
}

export const badRequest = (detail: string, invalid_params?: InvalidParam[]) =>
  new ApiError(400, detail, { invalid_params });
export const notFound = (detail: string) => new ApiError(404, detail);
export const conflict = (detail: string) => new ApiError(409, detail);
export const unprocessable = (detail: string, invalid_params?: InvalidParam[]) =>
  new ApiError(422, detail, { invalid_params });
export const boundary = (detail: string, invalid_params?: InvalidParam[]) =>
  new ApiError(422, detail, { code: BOUNDARY_CODE, invalid_params });
