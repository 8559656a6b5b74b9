import type { Context } from 'hono';
import type { Locale, Translate } from '../i18n';
import type { AdminClient } from './admin-api';

/** A request of the operator console's, with what every page uses. */
export interface OperatorRequest {
  c: Context;
  t: Translate;
  locale: Locale;
  /** The admin API's typed client with the browser's session cookie, origin and CSRF token. */
  api: AdminClient;
  /** The form the request posted (empty for a GET). */
  form: Record<string, unknown>;
}
