import type { MadeLink } from '../domain/console/links';
import { logger } from '../platform/log';
import type { Mailer } from '../platform/mailer';

/** Mailing the console's one-time links: where from, and the address people open the console at. */
export interface LinkMail {
  mailer: Mailer;
  publicUrl: string;
}

/** Where a link's token is used: in the fragment, which no request carries (no log or Referer keeps it). */
export const consoleLinkUrl = (token: string) => `/console/set-password#token=${token}`;

const SUBJECT = { invitation: 'Your invitation to the booking console', reset: 'Set a new password for the booking console' } as const;

/**
 * Mails a link to its user when a mail server is configured; whether it was sent. A mail
 * server that refuses or does not answer is logged and the link is still answered to whoever
 * made it, to hand over another way.
 */
export async function mailLink(linkMail: LinkMail | null, made: MadeLink): Promise<boolean> {
  if (!linkMail) return false;
  const url = `${linkMail.publicUrl}${consoleLinkUrl(made.token)}`;
  const lasts = made.purpose === 'invitation' ? 'seven days' : 'one hour';
  try {
    await linkMail.mailer.send({
      to: made.user.email,
      subject: SUBJECT[made.purpose],
      text: `Hello ${made.user.name},\n\nOpen this link to set your password for the booking console. It works once, for ${lasts}:\n\n${url}\n\nIf you did not expect it, ignore this message.\n`,
    });
    return true;
  } catch (err) {
    logger.warn({ err: (err as Error).message, link_id: made.id }, 'console link: the mail server did not take it; the link was answered to whoever made it');
    return false;
  }
}
