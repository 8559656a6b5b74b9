import { call } from './clients';
import { ADMIN_TOKEN, type TestStack } from './stack';

/** The rate the Duffel tests sell GBP at: 52,000.00 IRT per 1 GBP (a penny is 52,000 minor units of IRT). */
export const GBP_RATE = 52_000;

/** An operator sets a currency's exchange rate (wallet units per 1 unit), as `admin fx set` does. */
export const setRate = (stack: TestStack, from: string, rate: string | number) =>
  call(stack.admin, 'POST', '/admin/fx', { authorization: `Bearer ${ADMIN_TOKEN}` }, { from, rate });
