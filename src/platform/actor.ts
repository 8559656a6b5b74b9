/**
 * Who did something, as recorded on what they did (orders, ledger rows): an agency's user,
 * one of its API connections, an operator, or the engine itself.
 */
export interface ActorRecord {
  type: 'user' | 'connection' | 'operator' | 'engine';
  id: number | null;
  name: string;
  /** The connection a user acted through. */
  connection_id?: number;
}
