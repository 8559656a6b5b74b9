import nodemailer from 'nodemailer';

/** Sends a plain-text e-mail: the consoles' one-time links (docs/decisions/console-sign-in.md). */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

/**
 * A mailer over SMTP (nodemailer) at `url` (smtp://user:pass@host:587, smtps://… for TLS from
 * the start), sending as `from`. A send waits at most `timeoutMs` for the server, at each step.
 */
export function smtpMailer(url: string, from: string, timeoutMs = 10_000): Mailer {
  const at = new URL(url);
  const transport = nodemailer.createTransport({
    host: at.hostname,
    port: Number(at.port) || (at.protocol === 'smtps:' ? 465 : 587),
    secure: at.protocol === 'smtps:',
    ...(at.username ? { auth: { user: decodeURIComponent(at.username), pass: decodeURIComponent(at.password) } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    send: async (m) => {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text });
    },
  };
}
