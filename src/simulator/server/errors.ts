/** Error codes of the source's error envelope (`response.error.code`), see source-api.md section 3. */
export const ERROR_CODE = {
  authenticationFailed: 301,
  noAccess: 302,
  invalidParameter: 400,
  unknownMethod: 404,
  throttled: 429,
  internal: 500,
} as const;
export type ErrorCode = (typeof ERROR_CODE)[keyof typeof ERROR_CODE];

/**
 * An error that the server answers with an error envelope. Business errors (bad parameters,
 * no access, unknown method) keep HTTP 200, as the real service does.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly httpStatus: number = 200,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A malformed or missing parameter: error envelope code 400 naming the parameter. */
export function invalidParameter(name: string, problem: string): ApiError {
  return new ApiError(ERROR_CODE.invalidParameter, `Invalid parameter '${name}': ${problem}`);
}
