import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { reviewApp, type ReviewAppOptions } from './review-app.js';

/** A running reviewer web app. */
export interface ReviewServer {
  /** `http://host:port`, as a browser on this machine reaches it. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and ends the open ones. */
  close(): Promise<void>;
}

/** Host names that only this machine reaches. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Serves the reviewer web app on `host:port` (loopback and a free port by default). The queue and ledger
 * stay the caller's to close.
 * @example
 * const server = await serveReviewApp({ queue, startToken: generateToken() });
 */
export async function serveReviewApp({
  host = '127.0.0.1',
  port = 0,
  ...options
}: ReviewAppOptions & { host?: string; port?: number }): Promise<ReviewServer> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new TypeError(`Expected a port between 0 and 65535, got ${port}`);
  const app = reviewApp(options);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(started));
    started.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
