import { invalidState } from './errors';
import { formatMinor } from './money';

/** A movement of the Duffel balance: a payment (negative) or a refund (positive). */
export interface BalanceMovement {
  at: string;
  currency: string;
  /** Signed, in Duffel's decimal string. */
  amount: string;
  /** The order, order cancellation or stays booking it belongs to. */
  reference: string;
  kind: 'order_payment' | 'order_refund' | 'stays_payment' | 'stays_refund';
}

/**
 * The account's Duffel balance, one per currency (the stand-in does not convert between
 * them), and every movement of it.
 */
export class Account {
  private readonly balances = new Map<string, number>();
  readonly movements: BalanceMovement[] = [];

  constructor(
    private readonly now: () => Date,
    initial: Record<string, number>,
  ) {
    for (const [currency, minor] of Object.entries(initial)) this.balances.set(currency, minor);
  }

  balanceMinor(currency: string): number {
    return this.balances.get(currency) ?? 0;
  }

  setBalanceMinor(currency: string, minor: number): void {
    this.balances.set(currency, minor);
  }

  snapshot(): Record<string, string> {
    return Object.fromEntries([...this.balances].map(([currency, minor]) => [currency, formatMinor(minor, currency)]));
  }

  /** Takes a payment from the balance, or refuses as Duffel does when it is short. */
  debit(currency: string, minor: number, reference: string, kind: BalanceMovement['kind']): void {
    if (this.balanceMinor(currency) < minor) {
      throw invalidState('insufficient_balance', 'Insufficient balance', 'The wallet has insufficient balance for this operation.');
    }
    this.balances.set(currency, this.balanceMinor(currency) - minor);
    this.movements.push({ at: this.now().toISOString(), currency, amount: formatMinor(-minor, currency), reference, kind });
  }

  credit(currency: string, minor: number, reference: string, kind: BalanceMovement['kind']): void {
    this.balances.set(currency, this.balanceMinor(currency) + minor);
    this.movements.push({ at: this.now().toISOString(), currency, amount: formatMinor(minor, currency), reference, kind });
  }
}
