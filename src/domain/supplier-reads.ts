import { SupplierRejectedError } from '../suppliers/errors';
import { validation } from './errors';

/**
 * A supplier's "no" to a read (search, rate check, revalidation) becomes a 400 naming the
 * field the partner sent; a 409 means what was found is gone meanwhile.
 */
export async function supplierRead<T>(field: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof SupplierRejectedError) throw validation(field, err.status === 409 ? `no longer available: ${err.message}` : err.message);
    throw err;
  }
}
