// Shared OpenAPI component schemas: the error bodies every route may answer with.
import { z } from '@hono/zod-openapi';

export const ValidationError = z
  .object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    input: z.unknown(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('ValidationError');

const Hint = z.string().optional().openapi({ description: 'What to do next: the parameter to fix, where to sign in, the scope to ask for.' });

export const HTTPValidationError = z.object({ detail: z.array(ValidationError), hint: Hint }).openapi('HTTPValidationError');

export const ErrorDetail = z.object({ detail: z.string(), hint: Hint }).openapi('ErrorDetail');

/** An OpenAPI response with a JSON body of `schema`. */
export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

export const ValidationErrorResponse = {
  422: { description: 'Validation error', content: { 'application/json': { schema: HTTPValidationError } } },
};
export const NotFoundResponse = {
  404: { description: 'Not found', content: { 'application/json': { schema: ErrorDetail } } },
};
export const ErrorResponses = { ...NotFoundResponse, ...ValidationErrorResponse };

/** What a signed-in write may answer besides its success. */
export const WriteErrors = {
  401: jsonContent(ErrorDetail, 'Not authenticated'),
  403: jsonContent(ErrorDetail, 'Not allowed'),
  404: jsonContent(ErrorDetail, 'Not found'),
  422: jsonContent(HTTPValidationError, 'Validation error'),
  429: jsonContent(ErrorDetail, 'Too many requests'),
};
