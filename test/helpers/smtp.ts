import { createServer } from 'node:net';

/** Long lines are sent quoted-printable (soft breaks "=\n", bytes "=XX"): undone, so tests read the text. */
function decodeQuotedPrintable(message: string): string {
  if (!/^Content-Transfer-Encoding: quoted-printable$/im.test(message)) return message;
  const bytes = message.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

export interface SmtpSink {
  /** Where to point SMTP_URL. */
  url: string;
  /** Every message received so far (headers and body, a quoted-printable body decoded), oldest first. */
  messages: string[];
  close(): void;
}

/**
 * A minimal SMTP server on a free local port: greets, says yes to every command and keeps each
 * message, as a real mail server would accept it. For the e-mails of lib/notify.
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: string[] = [];
  const server = createServer((socket) => {
    let inData = false;
    let data = '';
    let pending = '';
    socket.write('220 test ESMTP\r\n');
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push(decodeQuotedPrintable(data));
            socket.write('250 queued\r\n');
          } else data += `${line}\n`;
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write('250 test\r\n');
        else if (/^DATA/i.test(line)) {
          inData = true;
          data = '';
          socket.write('354 go\r\n');
        } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `smtp://127.0.0.1:${(server.address() as { port: number }).port}`, messages, close: () => void server.close() };
}
