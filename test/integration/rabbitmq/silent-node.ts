import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A node as the network sees it, in front of the real broker: a TCP proxy that forwards
 * (`open`), stops answering while it keeps every connection and still accepts new ones
 * (`freeze`: what a process stopped with SIGSTOP looks like, or a node behind a half-open
 * link), or goes away (`kill`: its connections reset, new ones refused). Built with
 * `silent: true` it never forwarded anything: a listener that accepts and never answers.
 */
export class NodeProxy {
  private readonly sockets = new Set<Socket>();
  private frozen: boolean;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    silent: boolean,
  ) {
    this.frozen = silent;
  }

  static async start(target: { host: string; port: number }, options: { silent?: boolean } = {}) {
    let proxy: NodeProxy | undefined;
    const server = createServer((client) => proxy?.accept(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the proxy has no port');
    proxy = new NodeProxy(server, address.port, options.silent ?? false);
    return proxy;
  }

  /** The broker URL through this node. */
  url(user = 'guest', password = 'guest'): string {
    return `amqp://${user}:${password}@127.0.0.1:${this.port}`;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    if (this.frozen) return;
    const upstream = tcpConnect(target.port, target.host);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    // A frozen node's clients see nothing more, not even the broker closing its side.
    upstream.on('error', () => this.frozen || client.destroy());
    client.on('error', () => upstream.destroy());
    // Forwarded while open; dropped on the floor once frozen, with both sockets kept open.
    client.on('data', (chunk) => this.frozen || upstream.write(chunk));
    upstream.on('data', (chunk) => this.frozen || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => this.frozen || client.destroy());
  }

  freeze(): void {
    this.frozen = true;
  }

  async kill(): Promise<void> {
    for (const socket of this.sockets) socket.resetAndDestroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
