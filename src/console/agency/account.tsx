import { agenciesPages } from './agencies';
import { connectionsPages } from './connections';
import type { AgencyPages } from './kit';
import { usersPages } from './users';
import { walletPages } from './wallet';

/** The account pages: wallet and invoices, users, API connections and webhooks, sub-agencies. */
export const accountPages: AgencyPages = (app, kit) => {
  walletPages(app, kit);
  usersPages(app, kit);
  connectionsPages(app, kit);
  agenciesPages(app, kit);
};
