import type { NavItem } from '../layout';

/** The agency console's pages, each shown to those whose role has its right; one entry a line. */
export const AGENCY_NAV: readonly NavItem[] = [
  { href: '/console/', label: 'nav.dashboard', right: null },
  { href: '/console/security', label: 'nav.security', right: null },
];
