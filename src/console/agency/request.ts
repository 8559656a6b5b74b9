import type { Context } from 'hono';
import type { PartnerClient } from '../../client';
import type { Locale, Translate } from '../i18n';

/** A request of the agency console's, with what every page uses. */
export interface ConsoleRequest {
  c: Context;
  t: Translate;
  locale: Locale;
  /** Interface A with the browser's session cookie, origin and CSRF token. */
  api: PartnerClient;
}
