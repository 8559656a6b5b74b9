import type { NavItem } from '../layout';
import { ACCOUNT_NAV } from './account-nav';

/** The agency console's pages, each shown to those whose role has its right. */
export const AGENCY_NAV: readonly NavItem[] = [
  { href: '/console/', label: 'nav.dashboard', right: null },
  ...ACCOUNT_NAV,
  { href: '/console/security', label: 'nav.security', right: null },
];
