import type { NavItem } from '../layout';
import { ACCOUNT_NAV } from './account-nav';

/** The agency console's pages, each shown to those whose role has its right. */
export const AGENCY_NAV: readonly NavItem[] = [
  { href: '/console/', label: 'nav.dashboard', right: null },
  { href: '/console/hotels', label: 'nav.hotels', right: 'search' },
  { href: '/console/flights', label: 'nav.flights', right: 'search' },
  { href: '/console/bookings', label: 'nav.bookings', right: 'view' },
  ...ACCOUNT_NAV,
  { href: '/console/security', label: 'nav.security', right: null },
];
