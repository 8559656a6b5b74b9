/**
 * The operators' command line, a thin client of the admin API:
 *   npm run --silent admin -- <command> [options] [--json]
 * It finds the API at ADMIN_URL (default http://127.0.0.1:$ADMIN_PORT) and the token at
 * ADMIN_TOKEN or DATA_DIR/admin-token: an operator's own token (`operator add`), or the
 * bootstrap token. The audit names the token's operator.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run --silent admin -- <command> [options] [--json]

commands:
  partner create --name NAME [--credit-limit AMOUNT] [--topup AMOUNT] [--currency CODE]
                                                              (the wallet's currency, e.g. EUR; default the engine's CURRENCY)
  partner rotate-secret --partner ID
  partner rotate-agency-key --partner ID
  partner disable|enable --partner ID                          (refuse a partner's credentials; let them in again)
  partner list [--status active|disabled] [--name TEXT] [--page N] [--page-size N]
                                                              (partners by id with status and wallet; --name: part of the name)
  partner statement --partner ID --from YYYY-MM-DD --to YYYY-MM-DD [--format json|csv|pdf]
                                                              (the partner's statement, as it downloads it; csv and pdf
                                                               are written to stdout: redirect them to a file)
  partner invoices --partner ID --month YYYY-MM [--format json|pdf]
                                                              (the partner's invoices and credit notes of the month, issued
                                                               first where owed; pdf: the monthly summary, to stdout)
  partner rate-limit --partner ID [--per-minute N | --default]
                                                              (requests per minute on each interface; --default: back to
                                                               RATE_LIMIT_PER_MINUTE; neither: show it)
  partner alerts --partner ID [--thresholds P,P | none] [--prepaid-base AMOUNT | none]
                                                              (credit alerts: wallet.low_balance when credit left falls below
                                                               a threshold, whole percents, default 40,20; --prepaid-base: what
                                                               the percents are of for a partner without credit; neither: show)
  partners near-limit                                         (partners below their highest threshold, least credit left first)
  wallet show --partner ID
  wallet topup --partner ID --amount AMOUNT [--note TEXT] [--idempotency-key KEY]
  wallet credit-limit --partner ID --amount AMOUNT [--idempotency-key KEY]
                                                              (one key per invocation, made up when not given; run again with
                                                               the same key, the change is made once and answered again)
  wallet adjust --partner ID --amount ±AMOUNT --reason TEXT [--idempotency-key KEY]
                                                              (a manual correction, posted double-entry; above
                                                               ADJUSTMENT_APPROVAL_THRESHOLD only proposed)
  wallet approve --adjustment ID                              (another operator posts a proposed adjustment; once)
  wallet adjustments [--partner ID] [--status proposed|posted] [--page N] [--page-size N]
  operator add NAME                                           (a named operator and its token, shown once: give it to them)
  operator list                                               (operators: created, last used, revoked)
  operator revoke NAME|ID                                     (its token stops working at once)
  needs-attention                                             (payments and cancellations parked for an operator)
  schedule-changes                                            (airline schedule changes waiting for a partner's decision,
                                                               the nearest deadline first)
  schedule-changes poll                                       (ask the airlines now for the changes of orders still to fly,
                                                               as the workers do every SCHEDULE_CHANGE_POLL_MINUTES)
  order inspect --order ID                                    (order, money, payment and cancellation step and last error, events)
  order retry|confirm|compensate --order ID --reason TEXT [--supplier-ref REF]
                                                              (decide a payment or cancellation parked in needs_attention;
                                                               after the supplier confirmed only retry|confirm,
                                                               while a debit is being reversed only retry|compensate,
                                                               a cancellation whose refund failed only retry)
  reconcile                                                   (check the books; exits 1 on any finding)
  audit [--operator NAME] [--target PREFIX] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--page N] [--page-size N]
                                                              (operator actions, newest first, 100 a page)
  order refund --order ID --amount AMOUNT [--reason TEXT]     (decide an offline refund request)
  order refund-reject --order ID [--reason TEXT]
  visa decide --order ID --approve|--reject [--reason TEXT]    (relay the embassy's decision)
  residence accept-cancel --reservation ID                      (the host accepted a cancellation)
  webhooks list --partner ID                                   (a partner's webhook endpoints)
  webhooks add --partner ID --url URL [--types TYPE,TYPE] [--interface a|b]
                                                              (register an endpoint, its deliveries in A's or B's style;
                                                               its signing secret is shown once)
  webhooks delete|enable --endpoint ID                         (delete one; turn a disabled one back on)
  webhooks deliveries --partner ID                             (latest deliveries, each attempt's status, latency, answer)
  webhooks redeliver --event ID                                (send an event again, same webhook-id, to every endpoint taking it)
  privacy erase --order ID | --traveller PASSPORT_OR_NATIONAL_ID --reason TEXT
                                                              (a data subject's request: the travellers' personal data of an
                                                               order's bookings, or of every booking naming one, erased; audited)
  fx set --from CURRENCY --rate RATE [--to WALLET_CURRENCY]    (exchange rate: RATE units of the wallet currency (default CURRENCY) per
                                                               1 CURRENCY, e.g. --from GBP --rate 52000, or --from GBP --to EUR --rate 1.17)
  fx list                                                      (each pair's current rate, when it was set, and whether it is too old to sell with)
  report NAME [--from YYYY-MM-DD --to YYYY-MM-DD]             (an operator report as CSV on stdout; --from/--to for those over a period)
  report exposure                                              (each partner's balance, credit limit, credit used and its share, available)
  report margins --from YYYY-MM-DD --to YYYY-MM-DD            (margins and fees kept by month, service, partner and supplier)
  report suppliers --from YYYY-MM-DD --to YYYY-MM-DD          (what is owed to each supplier: opening, bought, refunded, owed)
  report trial-balance --from YYYY-MM-DD --to YYYY-MM-DD      (each account's opening, debits, credits, balance; totals per currency, zero)
  report fx-differences --from YYYY-MM-DD --to YYYY-MM-DD     (what exchange rates gained or lost between sales and refunds, by order)
  agency user list --partner ID                                (the agency's users: role, own bookings only, active or not)
  agency user add --partner ID --name NAME --email EMAIL --role owner|finance|agent|viewer [--own-bookings-only]
  agency user role --partner ID --user ID --role ROLE [--own-bookings-only]
  agency user deactivate --partner ID --user ID               (their connections stop working; what they did stays theirs)
  agency user invite --partner ID --user ID                   (a one-time link, 7 days, to set their console password; shown once)
  agency user reset --partner ID --user ID                    (a one-time link, 1 hour, to set a new password; their sessions end)
  agency connection list --partner ID                          (the agency's API connections; credentials are never shown again)
  agency connection add --partner ID --name NAME --interface a|b --rights RIGHT,RIGHT [--user ID]
                                                               (a connection with those rights, acting as the user if given;
                                                                its credentials are shown once)
  agency connection rotate|revoke --partner ID --connection ID
  agency child create --parent ID --name NAME                  (a sub-agency of partner ID; its credentials are shown once)
  agency child list --parent ID                                (its sub-agencies with balance, credit limit and available)
  agency child disable|enable --parent ID --child ID
  agency child credit --parent ID --child ID --amount AMOUNT [--idempotency-key KEY]
                                                               (the sub-agency's credit limit, out of the parent's wallet)
  agency child markup --parent ID --child ID [--service S [--percent P] [--fixed AMOUNT] | --service S --remove]
                                                               (the parent's markup on the sub-agency's price by service; none: show)
  markup set --service hotels|flights|products|tours|residence|visa [--partner ID] [--supplier simulator|duffel]
             [--percent P] [--fixed AMOUNT] [--min-margin AMOUNT] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--currency CODE]
                                                              (a markup: P percent of net (e.g. 7.5) + AMOUNT, at least the
                                                               minimum; the most specific rule in force prices a sale; it prices
                                                               wallets in --currency alone, default CURRENCY)
  markup list [--removed]                                      (the rules in force; --removed: the removed ones too)
  markup remove ID                                             (a rule stops pricing new sales; orders keep naming it)

AMOUNT is a decimal in currency units, e.g. 500000 or 500000.00; ±AMOUNT may start with - or +.`;

class UsageError extends Error {}

interface Command {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** The answer is a file (a CSV report, a PDF statement): written to stdout as it comes. */
  file?: boolean;
  headers?: Record<string, string>;
}

/** The Idempotency-Key of a money movement: --idempotency-key, else a new one for this invocation. */
function idempotencyKey(values: Record<string, string | boolean | undefined>): Record<string, string> {
  const given = values['idempotency-key'];
  if (given !== undefined && (typeof given !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(given))) {
    throw new UsageError('--idempotency-key must be 1 to 200 visible ASCII characters');
  }
  return { 'idempotency-key': typeof given === 'string' ? given : `cli-${crypto.randomUUID()}` };
}

function need(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function partnerPath(values: Record<string, string | boolean | undefined>, suffix: string): string {
  const id = need(values, 'partner');
  if (!/^[1-9]\d*$/.test(id)) throw new UsageError('--partner must be a partner id (a positive integer)');
  return `/admin/partners/${id}/${suffix}`;
}

function orderPath(values: Record<string, string | boolean | undefined>, suffix: string): string {
  const id = need(values, 'order');
  if (!/^[1-9]\d*$/.test(id)) throw new UsageError('--order must be an order id (a positive integer)');
  return `/admin/orders/${id}/${suffix}`;
}

function idOption(values: Record<string, string | boolean | undefined>, name: string): string {
  const id = need(values, name);
  if (!/^[1-9]\d*$/.test(id)) throw new UsageError(`--${name} must be an id (a positive integer)`);
  return id;
}

/** "40,20" as [40, 20]; "none" as no thresholds (no alerts). The API checks the range. */
function thresholdsOption(raw: string): number[] {
  if (raw.trim() === 'none') return [];
  const parts = raw.split(',').map((t) => t.trim());
  if (parts.some((t) => !/^\d{1,3}$/.test(t))) throw new UsageError('--thresholds must be whole percents separated by commas, e.g. 40,20 (or none)');
  return parts.map(Number);
}

/** A query string of the options given, by their API names; empty without any. */
function queryOf(values: Record<string, string | boolean | undefined>, names: Record<string, string>): string {
  const query = new URLSearchParams();
  for (const [option, param] of Object.entries(names)) {
    const v = values[option];
    if (typeof v === 'string') query.set(param, v);
  }
  return query.size ? `?${query}` : '';
}

/** `--amount -1500` as `--amount=-1500`: a negative amount is a value, not an option. */
const signedAmounts = (argv: string[]) =>
  argv.flatMap((a, i) =>
    a === '--amount' && /^-\d/.test(argv[i + 1] ?? '') ? [] : i > 0 && argv[i - 1] === '--amount' && /^-\d/.test(a) ? [`--amount=${a}`] : [a],
  );

/** `agency user|connection <action>`: an operator managing an agency's users and API connections as its owner does on Interface A. */
function organisationCommand(kind: 'user' | 'connection', action: string | undefined, values: Record<string, string | boolean | undefined>): Command {
  if (kind === 'user') {
    const base = partnerPath(values, 'users');
    const ownOnly = values['own-bookings-only'] === true ? { own_bookings_only: true } : {};
    switch (action) {
      case 'list':
        return { method: 'GET', path: base };
      case 'add':
        return { method: 'POST', path: base, body: { name: need(values, 'name'), email: need(values, 'email'), role: need(values, 'role'), ...ownOnly } };
      case 'role':
        return { method: 'POST', path: `${base}/${idOption(values, 'user')}/role`, body: { role: need(values, 'role'), ...ownOnly } };
      case 'deactivate':
        return { method: 'POST', path: `${base}/${idOption(values, 'user')}/deactivate` };
      case 'invite':
        return { method: 'POST', path: `${base}/${idOption(values, 'user')}/invitation` };
      case 'reset':
        return { method: 'POST', path: `${base}/${idOption(values, 'user')}/password-reset` };
      default:
        throw new UsageError('agency user takes list, add, role, deactivate, invite or reset');
    }
  }
  const base = partnerPath(values, 'connections');
  switch (action) {
    case 'list':
      return { method: 'GET', path: base };
    case 'add': {
      const user = values.user === undefined ? {} : { user_id: Number(idOption(values, 'user')) };
      const rights = need(values, 'rights')
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
      return { method: 'POST', path: base, body: { name: need(values, 'name'), interface: need(values, 'interface'), rights, ...user } };
    }
    case 'rotate':
    case 'revoke':
      return { method: 'POST', path: `${base}/${idOption(values, 'connection')}/${action}` };
    default:
      throw new UsageError('agency connection takes list, add, rotate or revoke');
  }
}

/** `agency child <action>`: an operator acting on a parent's sub-agencies as the parent does on Interface A. */
function subAgencyCommand(action: string | undefined, values: Record<string, string | boolean | undefined>): Command {
  const base = `/admin/partners/${idOption(values, 'parent')}/agencies`;
  switch (action) {
    case 'create':
      return { method: 'POST', path: base, body: { name: need(values, 'name') } };
    case 'list':
      return { method: 'GET', path: base };
    case 'disable':
    case 'enable':
      return { method: 'POST', path: `${base}/${idOption(values, 'child')}/${action}` };
    case 'credit':
      return { method: 'POST', path: `${base}/${idOption(values, 'child')}/credit`, body: { amount: need(values, 'amount') }, headers: idempotencyKey(values) };
    case 'markup': {
      const path = `${base}/${idOption(values, 'child')}/markups`;
      if (values.service === undefined) return { method: 'GET', path };
      return { method: 'POST', path, body: { service: values.service, percent: values.percent, fixed: values.fixed, remove: values.remove === true } };
    }
    default:
      throw new UsageError('agency child takes create, list, disable, enable, credit or markup');
  }
}

export function toCommand(argv: string[]): { command: Command; json: boolean } {
  const { values, positionals } = parseArgs({
    args: signedAmounts(argv),
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'credit-limit': { type: 'string' },
      currency: { type: 'string' },
      'per-minute': { type: 'string' },
      default: { type: 'boolean', default: false },
      topup: { type: 'string' },
      partner: { type: 'string' },
      user: { type: 'string' },
      connection: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      rights: { type: 'string' },
      'own-bookings-only': { type: 'boolean', default: false },
      parent: { type: 'string' },
      child: { type: 'string' },
      remove: { type: 'boolean', default: false },
      amount: { type: 'string' },
      note: { type: 'string' },
      'idempotency-key': { type: 'string' },
      order: { type: 'string' },
      reservation: { type: 'string' },
      endpoint: { type: 'string' },
      event: { type: 'string' },
      url: { type: 'string' },
      types: { type: 'string' },
      interface: { type: 'string' },
      'supplier-ref': { type: 'string' },
      target: { type: 'string' },
      reason: { type: 'string' },
      traveller: { type: 'string' },
      from: { type: 'string' },
      month: { type: 'string' },
      rate: { type: 'string' },
      thresholds: { type: 'string' },
      'prepaid-base': { type: 'string' },
      to: { type: 'string' },
      service: { type: 'string' },
      supplier: { type: 'string' },
      percent: { type: 'string' },
      fixed: { type: 'string' },
      'min-margin': { type: 'string' },
      removed: { type: 'boolean', default: false },
      adjustment: { type: 'string' },
      operator: { type: 'string' },
      status: { type: 'string' },
      page: { type: 'string' },
      'page-size': { type: 'string' },
      format: { type: 'string' },
      json: { type: 'boolean', default: false },
      approve: { type: 'boolean', default: false },
      reject: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [group, action] = positionals;
  const json = values.json === true;
  if (group === 'report') {
    if (!action || !/^[a-z-]+$/.test(action)) throw new UsageError('report: name a report, e.g. report exposure');
    const query = new URLSearchParams();
    for (const name of ['from', 'to'] as const) if (values[name] !== undefined) query.set(name, String(values[name]));
    return { json, command: { method: 'GET', path: `/admin/reports/${action}${query.size ? `?${query}` : ''}`, file: true } };
  }
  switch ([group, action].filter(Boolean).join(' ')) {
    case 'partner create':
      return {
        json,
        command: {
          method: 'POST',
          path: '/admin/partners',
          body: { name: need(values, 'name'), credit_limit: values['credit-limit'], topup: values.topup, currency: values.currency },
        },
      };
    case 'partner rotate-secret':
      return { json, command: { method: 'POST', path: partnerPath(values, 'rotate-secret') } };
    case 'partner rotate-agency-key':
      return { json, command: { method: 'POST', path: partnerPath(values, 'rotate-agency-key') } };
    case 'partner invoices': {
      const format = values.format ?? 'json';
      if (!['json', 'pdf'].includes(String(format))) throw new UsageError('--format must be json or pdf');
      const path = `${partnerPath(values, 'invoices')}?${new URLSearchParams({ month: need(values, 'month'), format: String(format) })}`;
      return { json, command: { method: 'GET', path, file: format !== 'json' } };
    }
    case 'partner rate-limit': {
      const perMinute = values['per-minute'];
      if (perMinute !== undefined && values.default) throw new UsageError('give --per-minute N or --default, not both');
      if (perMinute === undefined && !values.default) return { json, command: { method: 'GET', path: partnerPath(values, 'rate-limit') } };
      if (perMinute !== undefined && !/^[1-9]\d*$/.test(perMinute)) throw new UsageError('--per-minute must be a positive integer');
      return {
        json,
        command: { method: 'POST', path: partnerPath(values, 'rate-limit'), body: { per_minute: perMinute === undefined ? null : Number(perMinute) } },
      };
    }
    case 'partner alerts': {
      const body: Record<string, unknown> = {};
      if (values.thresholds !== undefined) body.thresholds = thresholdsOption(String(values.thresholds));
      const base = values['prepaid-base'];
      if (base !== undefined) body.prepaid_base = base === 'none' ? null : base;
      if (!Object.keys(body).length) return { json, command: { method: 'GET', path: partnerPath(values, 'alerts') } };
      return { json, command: { method: 'POST', path: partnerPath(values, 'alerts'), body } };
    }
    case 'partners near-limit':
      return { json, command: { method: 'GET', path: '/admin/partners/near-limit' } };
    case 'partner disable':
      return { json, command: { method: 'POST', path: partnerPath(values, 'disable') } };
    case 'partner enable':
      return { json, command: { method: 'POST', path: partnerPath(values, 'enable') } };
    case 'partner list':
      return {
        json,
        command: { method: 'GET', path: `/admin/partners${queryOf(values, { status: 'status', name: 'name', page: 'page', 'page-size': 'page_size' })}` },
      };
    case 'partner statement': {
      const format = values.format ?? 'json';
      if (!['json', 'csv', 'pdf'].includes(String(format))) throw new UsageError('--format must be json, csv or pdf');
      const path = `${partnerPath(values, 'statement')}?${new URLSearchParams({ from: need(values, 'from'), to: need(values, 'to'), format: String(format) })}`;
      return { json, command: { method: 'GET', path, file: format !== 'json' } };
    }
    case 'wallet adjust':
      return {
        json,
        command: {
          method: 'POST',
          path: partnerPath(values, 'adjustments'),
          body: { amount: need(values, 'amount'), reason: need(values, 'reason') },
          headers: idempotencyKey(values),
        },
      };
    case 'wallet approve':
      return { json, command: { method: 'POST', path: `/admin/adjustments/${idOption(values, 'adjustment')}/approve` } };
    case 'wallet adjustments':
      return {
        json,
        command: {
          method: 'GET',
          path: `/admin/adjustments${queryOf(values, { partner: 'partner', status: 'status', page: 'page', 'page-size': 'page_size' })}`,
        },
      };
    case 'wallet show':
      return { json, command: { method: 'GET', path: partnerPath(values, 'wallet') } };
    case 'wallet topup':
      return {
        json,
        command: {
          method: 'POST',
          path: partnerPath(values, 'topup'),
          body: { amount: need(values, 'amount'), note: values.note },
          headers: idempotencyKey(values),
        },
      };
    case 'wallet credit-limit':
      return {
        json,
        command: { method: 'POST', path: partnerPath(values, 'credit-limit'), body: { amount: need(values, 'amount') }, headers: idempotencyKey(values) },
      };
    case 'operator add': {
      const name = positionals[2];
      if (!name) throw new UsageError("operator add takes the operator's name, e.g. operator add alice");
      return { json, command: { method: 'POST', path: '/admin/operators', body: { name } } };
    }
    case 'operator list':
      return { json, command: { method: 'GET', path: '/admin/operators' } };
    case 'operator revoke': {
      const ref = positionals[2];
      if (!ref) throw new UsageError("operator revoke takes the operator's name or id, e.g. operator revoke alice");
      return { json, command: { method: 'POST', path: `/admin/operators/${encodeURIComponent(ref)}/revoke` } };
    }
    case 'order inspect':
      return { json, command: { method: 'GET', path: orderPath(values, '').replace(/\/$/, '') } };
    case 'order retry':
    case 'order confirm':
    case 'order compensate':
      return {
        json,
        command: { method: 'POST', path: orderPath(values, action!), body: { reason: need(values, 'reason'), supplier_ref: values['supplier-ref'] } },
      };
    case 'reconcile':
      return { json, command: { method: 'GET', path: '/admin/reconcile' } };
    case 'needs-attention':
      return { json, command: { method: 'GET', path: '/admin/needs-attention' } };
    case 'schedule-changes':
      return { json, command: { method: 'GET', path: '/admin/schedule-changes' } };
    case 'schedule-changes poll':
      return { json, command: { method: 'POST', path: '/admin/schedule-changes/poll' } };
    case 'audit':
      return {
        json,
        command: {
          method: 'GET',
          path: `/admin/audit${queryOf(values, { operator: 'operator', target: 'target', from: 'from', to: 'to', page: 'page', 'page-size': 'page_size' })}`,
        },
      };
    case 'order refund':
      return { json, command: { method: 'POST', path: orderPath(values, 'refund'), body: { amount: need(values, 'amount'), reason: values.reason } } };
    case 'order refund-reject':
      return { json, command: { method: 'POST', path: orderPath(values, 'refund-reject'), body: { reason: values.reason } } };
    case 'visa decide': {
      if (values.approve === values.reject) throw new UsageError('give exactly one of --approve and --reject');
      const decision = values.approve ? 'approve' : 'reject';
      return { json, command: { method: 'POST', path: orderPath(values, 'visa-decision'), body: { decision, reason: values.reason } } };
    }
    case 'residence accept-cancel': {
      const id = need(values, 'reservation');
      if (!/^[1-9]\d*$/.test(id)) throw new UsageError('--reservation must be a reservation id (a positive integer)');
      return { json, command: { method: 'POST', path: `/admin/reservations/${id}/accept-cancel` } };
    }
    case 'webhooks list':
      return { json, command: { method: 'GET', path: partnerPath(values, 'webhooks') } };
    case 'webhooks add': {
      const types =
        values.types === undefined
          ? undefined
          : String(values.types)
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean);
      return {
        json,
        command: { method: 'POST', path: partnerPath(values, 'webhooks'), body: { url: need(values, 'url'), event_types: types, interface: values.interface } },
      };
    }
    case 'webhooks deliveries':
      return { json, command: { method: 'GET', path: partnerPath(values, 'webhooks/deliveries') } };
    case 'webhooks delete':
    case 'webhooks enable':
      return { json, command: { method: 'POST', path: `/admin/webhooks/${idOption(values, 'endpoint')}/${action}` } };
    case 'webhooks redeliver':
      return { json, command: { method: 'POST', path: `/admin/events/${idOption(values, 'event')}/redeliver` } };
    case 'privacy erase': {
      const order = values.order === undefined ? undefined : Number(idOption(values, 'order'));
      if ((order === undefined) === (values.traveller === undefined)) throw new UsageError('give --order ID or --traveller PASSPORT_OR_NATIONAL_ID');
      return {
        json,
        command: {
          method: 'POST',
          path: '/admin/privacy/erase',
          body: { ...(order === undefined ? { traveller: need(values, 'traveller') } : { order_id: order }), reason: need(values, 'reason') },
        },
      };
    }
    case 'fx set':
      return { json, command: { method: 'POST', path: '/admin/fx', body: { from: need(values, 'from'), to: values.to, rate: need(values, 'rate') } } };
    case 'fx list':
      return { json, command: { method: 'GET', path: '/admin/fx' } };
    case 'markup set':
      return {
        json,
        command: {
          method: 'POST',
          path: '/admin/markups',
          body: {
            service: need(values, 'service'),
            partner: values.partner,
            supplier: values.supplier,
            percent: values.percent,
            fixed: values.fixed,
            min_margin: values['min-margin'],
            from: values.from,
            to: values.to,
            currency: values.currency,
          },
        },
      };
    case 'agency user':
    case 'agency connection':
      return { json, command: organisationCommand(action === 'user' ? 'user' : 'connection', positionals[2], values) };
    case 'agency child':
      return { json, command: subAgencyCommand(positionals[2], values) };
    case 'markup list':
      return { json, command: { method: 'GET', path: `/admin/markups${values.removed ? '?removed=true' : ''}` } };
    case 'markup remove': {
      const id = positionals[2];
      if (id === undefined || !/^[1-9]\d*$/.test(id)) throw new UsageError('markup remove takes the rule id (a positive integer), e.g. markup remove 3');
      return { json, command: { method: 'DELETE', path: `/admin/markups/${id}` } };
    }
    default:
      throw new UsageError(group ? `unknown command: ${positionals.join(' ')}` : 'a command is required');
  }
}

function adminToken(): string {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const file = path.join(path.resolve(process.env.DATA_DIR || '.data'), 'admin-token');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(`no admin token: set ADMIN_TOKEN, or start the engine once so that it writes ${file}`);
  }
}

function print(result: Record<string, unknown>, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  for (const [k, v] of Object.entries(result)) console.log(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  if ('api_secret' in result || 'agency_key' in result) console.error('\nStore these credentials now: the secret and agency key are never shown again.');
  if ('secret' in result) console.error('\nGive the partner this signing secret now: it is never shown again.');
  if ('token' in result) console.error('\nGive the operator this token now: it is never shown again.');
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof toCommand>;
  try {
    if (argv.includes('--help') || argv.length === 0) {
      console.log(USAGE);
      return argv.length === 0 ? 2 : 0;
    }
    parsed = toCommand(argv);
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const base = process.env.ADMIN_URL || `http://127.0.0.1:${process.env.ADMIN_PORT || '8081'}`;
  const { command, json } = parsed;
  const res = await fetch(`${base}${command.path}`, {
    method: command.method,
    headers: {
      authorization: `Bearer ${adminToken()}`,
      'content-type': 'application/json',
      ...command.headers,
    },
    body: command.body ? JSON.stringify(command.body) : undefined,
  });
  if (command.file && res.ok) {
    process.stdout.write(Buffer.from(await res.arrayBuffer()));
    return 0;
  }
  const body = (await res.json().catch(() => ({ error: `HTTP ${res.status}` }))) as Record<string, unknown>;
  if (!res.ok) {
    if (json) console.log(JSON.stringify(body));
    console.error(`error (${res.status}): ${String(body.error ?? 'request failed')}`);
    return 1;
  }
  print(body, json);
  // reconcile: any finding is a failure, so that a cron job or CI notices.
  return body.ok === false ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`error: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
