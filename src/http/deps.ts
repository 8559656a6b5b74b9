import type { LinkMail } from './console-links';
import type { Context } from 'hono';
import type { Health, HealthReport } from '../health/model';
import type { DocumentSettings } from '../domain/documents/issuer';
import type { PayDeps } from '../domain/pay-request';
import type { Partner } from '../domain/partners';
import { pricingIn, type PricingDeps } from '../domain/money/pricing';
import type { SecretBox } from '../platform/secret-box';
import type { WebhookUrlPolicy } from '../platform/webhook-address';
import type { Suppliers } from '../suppliers';
import type { RateLimits } from './rate-limit';

export type { Health, HealthReport };

/**
 * What the HTTP layer needs; built once by the process entry point (or by a test). The
 * supplier adapters are what the API reads from (search, rate checks); changes go through workflows.
 */
export interface ApiDeps extends PayDeps, Pick<Suppliers, 'hotelSupplier' | 'flightSupplier' | 'flightSupplierOf' | 'flightAfterSaleOf'> {
  sandbox: boolean;
  /** The secret Duffel signs its webhooks with (DUFFEL_WEBHOOK_SECRET); unset: POST /webhooks/duffel answers 404. */
  duffelWebhookSecret?: string;
  currency: string;
  /** How supplier amounts become the partner's prices (src/domain/money/pricing.ts). */
  pricing: PricingDeps;
  /** The phone number Interface B's hotel bookings give a supplier that requires one (AGENCY_CONTACT_PHONE). */
  agencyContactPhone?: string;
  /** How long unpaid holds we place ourselves last (tour seats, residence dates); how long the sandbox embassy takes. */
  holds: { tourPrebookMs: number; residenceMs: number; visaDecisionMs: number; hostAcceptMs: number };
  health: Health;
  /** Requests per minute per partner and interface, and per client address before authentication (src/http/rate-limit.ts). */
  rateLimits: RateLimits;
  /** The request's client address (TRUSTED_PROXIES; src/http/client-address.ts). */
  clientAddress: (c: Context) => string;
  /** What webhook signing secrets are sealed with (src/runtime/secrets-key.ts). */
  secrets: SecretBox;
  /** Where webhook endpoints may point (SANDBOX, WEBHOOK_ALLOWED_PRIVATE_HOSTS). */
  webhookUrls: WebhookUrlPolicy;
  /** The issuer's legal details and the tax invoices state (OPERATOR_*, INVOICE_TAX_*). */
  documents: DocumentSettings;
  /** Mails the console's one-time links (SMTP_URL and PUBLIC_URL); null: they are only answered. */
  linkMail: LinkMail | null;
}

/** What a route hands the domain to start a workflow and wait for it within the pay bound. */
export const workflowDeps = (deps: ApiDeps) => ({
  db: deps.db,
  temporal: deps.temporal,
  taskQueue: deps.taskQueue,
  waitMs: deps.payWaitMs,
  ...(deps.outcomes ? { outcomes: deps.outcomes } : {}),
});

/** How a partner's prices are made: in its wallet's currency. */
export const partnerPricing = (deps: ApiDeps, partner: Partner): PricingDeps => pricingIn(deps.pricing, partner.currency);
