/**
 * Errors the domain raises on purpose. Each interface maps `code` to its own status
 * and error shape in one place (its onError); anything else is an unexpected 500.
 */
export type DomainErrorCode =
  | 'validation' // 400 on A, 422 on B
  | 'unauthorized'
  | 'not_found'
  | 'not_payable'
  | 'insufficient_credit'
  | 'conflict'
  | 'supplier_failed'; // the supplier said no and every effect was undone

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validation = (field: string, message: string) => new DomainError('validation', `${field}: ${message}`, field);
export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);
