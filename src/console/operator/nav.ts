import type { NavItem } from '../layout';

/** The operator console's pages: every operator may use every one (the admin API has no roles). */
export const OPERATOR_NAV: readonly NavItem[] = [
  { href: '/console/', label: 'op.nav.queue', right: null },
  { href: '/console/partners', label: 'op.nav.partners', right: null },
  { href: '/console/rates', label: 'op.nav.rates', right: null },
  { href: '/console/markups', label: 'op.nav.markups', right: null },
  { href: '/console/reports', label: 'op.nav.reports', right: null },
  { href: '/console/audit', label: 'op.nav.audit', right: null },
];
