import type { NavItem } from '../layout';

/** The account pages in the navigation, each with the right it needs. */
export const ACCOUNT_NAV: readonly NavItem[] = [
  { href: '/console/wallet', label: 'nav.wallet', right: 'finance' },
  { href: '/console/invoices', label: 'nav.invoices', right: 'finance' },
  { href: '/console/users', label: 'nav.users', right: 'users' },
  { href: '/console/connections', label: 'nav.connections', right: 'connections' },
  { href: '/console/webhooks', label: 'nav.webhooks', right: 'webhooks' },
  { href: '/console/agencies', label: 'nav.agencies', right: 'sub_agencies' },
];
