/// <reference types="@duffel/api" />
import type { ApiResponseError, ApiResponseMeta } from '@duffel/api/types';

/** One error as Duffel's reference gives it: the SDK's fields and, for validation errors, the field at fault. */
export type DuffelErrorObject = ApiResponseError & { source?: { field: string; pointer: string } };

/** Every error body: `{ errors: [...], meta: { status, request_id } }`. */
export interface DuffelErrorBody {
  errors: DuffelErrorObject[];
  meta: ApiResponseMeta;
}

export type DuffelErrorType =
  'airline_error' | 'api_error' | 'authentication_error' | 'invalid_request_error' | 'invalid_state_error' | 'rate_limit_error' | 'validation_error';

const DOCS = 'https://duffel.com/docs/api/overview/errors';

/** A refusal in Duffel's shape; the server turns it into the status and body. */
export class StandInError extends Error {
  constructor(
    readonly status: number,
    readonly type: DuffelErrorType,
    readonly code: string,
    readonly title: string,
    message: string,
    readonly source?: { field: string; pointer: string },
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toObject(): DuffelErrorObject {
    return {
      type: this.type,
      code: this.code,
      title: this.title,
      message: this.message,
      documentation_url: DOCS,
      ...(this.source && { source: this.source }),
    };
  }
}

export const notFound = (what = 'The resource you are trying to access does not exist.') =>
  new StandInError(404, 'invalid_request_error', 'not_found', 'Not found', what);

/** A linked record (an offer, an order, a rate) named in the body that is not in the account. */
export const linkedNotFound = (field: string, pointer = `/${field}`) =>
  new StandInError(
    422,
    'validation_error',
    'not_found',
    'Linked record(s) not found',
    `Field '${field}' contains ID(s) of linked record(s) that were not found in your account`,
    { field, pointer },
  );

export const invalidState = (code: string, title: string, message: string) => new StandInError(422, 'invalid_state_error', code, title, message);

export const validation = (code: 'validation_required' | 'validation_format', field: string, pointer: string, message: string) =>
  new StandInError(422, 'validation_error', code, code === 'validation_required' ? 'Required field' : 'Invalid field', message, {
    field,
    pointer,
  });

export const offerNoLongerAvailable = () =>
  invalidState(
    'offer_no_longer_available',
    'Offer no longer available',
    'The offer you selected is no longer available. Please search again and select a new offer.',
  );
