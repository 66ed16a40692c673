import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a broker, so a test can take the broker away from one client mid-run
 * (every connection cut, no new ones) without touching the broker everyone shares.
 */
export class TcpProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => {
      const upstream = connect(this.targetPort, this.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /** The broker is gone: open connections are cut and new ones refused. */
  async cut(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
