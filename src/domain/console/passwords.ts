import { hash, verify } from '@node-rs/argon2';
import { validation } from '../errors';

/**
 * Console passwords as argon2id PHC strings (docs/decisions/console-sign-in.md): memory-hard,
 * at the OWASP cheat sheet's first setting (19 MiB, two passes, one lane), so a stolen table
 * costs a guesser as much memory per guess as it costs the engine per sign-in.
 */
/** `Algorithm.Argon2id` of the library's const enum, which isolated modules cannot read. */
const ARGON2ID_ALGORITHM = 2;
const ARGON2ID = { algorithm: ARGON2ID_ALGORITHM, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** NIST SP 800-63B: long passphrases welcome, no composition rules; a bound keeps hashing cheap to refuse. */
export const PASSWORD_LENGTH = { min: 12, max: 256 } as const;

/** A password as a user chose it, or a 400 naming `field`. */
export function parsePassword(field: string, input: unknown): string {
  if (typeof input !== 'string') throw validation(field, 'must be a string');
  const length = [...input].length;
  if (length < PASSWORD_LENGTH.min) throw validation(field, `must be at least ${PASSWORD_LENGTH.min} characters`);
  if (length > PASSWORD_LENGTH.max) throw validation(field, `must be at most ${PASSWORD_LENGTH.max} characters`);
  return input;
}

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2ID);

/** A hash of no one's password: compared against when nobody matched, so a refusal takes as long either way. */
let decoy: Promise<string> | undefined;

/** Whether `password` is the one `stored` hashes; with no stored hash, a comparison all the same, always false. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    decoy ??= hashPassword('no user has this password');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
