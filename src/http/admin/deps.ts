import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { Db } from '../../db/client';
import type { DocumentSettings } from '../../domain/documents/issuer';
import type { SecretBox } from '../../platform/secret-box';
import type { WebhookUrlPolicy } from '../../platform/webhook-address';
import type { SupplierBreakers } from '../../suppliers/breakers';
import type { FlightAfterSale } from '../../suppliers/flight-after-sale';
import type { LinkMail } from '../console-links';
import type { Health } from '../deps';
import type { MetricsSource } from '../metrics';
import type { SignInThrottle } from '../rate-limit';

/** What the admin app is built from (./app.ts), and each area's routes take their part of. */
export interface AdminDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  waitMs: number;
  residenceHoldMs: number;
  /** What /metrics serves: this process's series, and the in-process worker's Core metrics if any. */
  metrics: MetricsSource;
  /** The bootstrap token (ADMIN_TOKEN, or DATA_DIR/admin-token): it acts as the operator "bootstrap". */
  adminToken: string;
  /** Failed console sign-ins with an operator token, counted per client address (docs/decisions/console-sign-in.md). */
  signIns: SignInThrottle;
  /** How many bad tokens one client address may present per minute before it is answered 429. */
  badTokensPerMinute?: number;
  currency: string;
  health: Health;
  /** The suppliers' search breakers, shown with the parts' checks. */
  breakers?: SupplierBreakers;
  /** How old an exchange rate may be and still price a sale (FX_RATE_MAX_AGE_HOURS), shown with the rates. */
  fxRateMaxAgeMs: number;
  /** The engine's default requests per minute per interface (RATE_LIMIT_PER_MINUTE), shown next to a partner's own. */
  rateLimitPerMinute: number;
  /** What webhook signing secrets are sealed with (src/runtime/secrets-key.ts). */
  secrets: SecretBox;
  /** The issuer's legal details and the tax invoices state (OPERATOR_*, INVOICE_TAX_*). */
  documents: DocumentSettings;
  /** Mails the console's one-time links (SMTP_URL and PUBLIC_URL); null: they are only answered. */
  linkMail: LinkMail | null;
  /** Where webhook endpoints may point (SANDBOX, WEBHOOK_ALLOWED_PRIVATE_HOSTS): the same rules as for partners. */
  webhookUrls: WebhookUrlPolicy;
  /** What Temporal payloads are encrypted with: the codec endpoint decodes and encodes with it (./codec.ts). */
  payloadCodec: PayloadCodec;
  /** The Temporal Web origin allowed to call the codec endpoint from the browser (TEMPORAL_UI_ORIGIN). */
  temporalUiOrigin?: string;
  /** The largest manual adjustment one operator posts alone, in minor units of `currency` (ADJUSTMENT_APPROVAL_THRESHOLD). */
  adjustmentApprovalThresholdMinor: number;
  /** Who is near the credit limit (./near-limit-watch.ts), shared with the process's own timer when it runs one; else the app's own. */
  nearLimitWatch?: () => Promise<void>;
  /** What can happen to a flight order after the sale, at the airline that holds it (`admin schedule-changes poll`). */
  flightAfterSaleOf?: (supplier: string) => FlightAfterSale;
}
