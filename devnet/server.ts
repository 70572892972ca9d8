import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TronWeb } from 'tronweb';
import type { AddressInfo } from 'node:net';
import { ChainError, createChain, type Chain } from '@/lib/chain';
import { BadRequest, resolve, type Params } from './api';
import type { DevnetEnv } from '@/lib/config';
import { faucetKey, rentalProviderKey, USDT_CONTRACT, witnessKey, type DevnetKey } from './genesis';
import { blacklistSchema, chainParametersSchema, delaySchema, dropSchema, failSchema, faultJson, finalitySchema, issues, lagSchema, refuseSchema, reorgSchema, resetSchema, setBalanceSchema, solidifySchema, throttleSchema, trafficSchema } from './controls';
import { toNodeJson } from './json';
import { DevnetInputError, DevNode, LaggingView, type ChainView } from './node';
import { MUTABLE_PARAMETERS, parameterTable, param, setParam } from './params';
import { FAKE_USDT_CONTRACT, PAYER_CONTRACT } from './contracts';
import { fakeTokenPaySchema, payFakeToken, payRequestSchema, payViaContract, payViaContractSchema, sendFromFaucet, type PayRequest } from './pay';
import { RentalProvider } from './rental';
import type { TrafficSettings } from './traffic';

export interface DevnetOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  blockMs: number;
  solidifiedDepth: number;
  faucet: DevnetKey;
  witness: DevnetKey;
  /** The emulated energy rental provider's account (devnet/rental.ts); account 2 of the mnemonic unless given. */
  rentalProvider?: DevnetKey;
  /** Serve a lagging replica / a balancer on these ports (0 picks one); off when undefined. */
  replicaPort?: number;
  balancerPort?: number;
  /** Blocks the replica starts behind the head; POST /devnet/fault/lag changes it. */
  replicaLag?: number;
  /** Mainnet-shaped traffic in every block (devnet/traffic.ts); POST /devnet/traffic changes it. */
  traffic?: TrafficSettings;
}

export interface DevnetInfo {
  url: string;
  /** The node API K blocks behind the head (null when not served). */
  replicaUrl: string | null;
  /** Alternates requests between the head and the replica (null when not served). */
  balancerUrl: string | null;
  replicaLag: number;
  usdtContract: string;
  /** The payer contract (POST /devnet/pay-via-contract) and the look-alike "Tether USD" token (POST /devnet/fake-token/pay). */
  payerContract: string;
  fakeUsdtContract: string;
  faucetAddress: string;
  blockMs: number;
  solidifiedDepth: number;
  headBlock: number;
  solidifiedBlock: number;
  /** The traffic every new block gets (POST /devnet/traffic). */
  traffic: TrafficSettings;
  /** The parameter table, int64 values as decimal strings. */
  parameters: Record<string, { value: string; chainParameter?: string; doc: string }>;
}

export interface Devnet {
  url: string;
  info(): DevnetInfo;
  close(): Promise<void>;
}

export function devnetOptions(env: DevnetEnv): DevnetOptions {
  return {
    host: env.DEVNET_HOST,
    port: env.DEVNET_PORT,
    dataDir: env.DEVNET_DATA_DIR,
    blockMs: env.DEVNET_BLOCK_MS,
    solidifiedDepth: env.DEVNET_SOLIDIFIED_DEPTH,
    faucet: faucetKey(env),
    witness: witnessKey(env),
    rentalProvider: rentalProviderKey(env),
    replicaPort: env.DEVNET_REPLICA_PORT,
    balancerPort: env.DEVNET_BALANCER_PORT,
    replicaLag: env.DEVNET_REPLICA_LAG,
    traffic: { txPerBlock: env.DEVNET_TRAFFIC_TX_PER_BLOCK, usdtShare: env.DEVNET_TRAFFIC_USDT_SHARE },
  };
}

const MAX_BODY = 1 << 20;

async function readParams(req: IncomingMessage, url: URL): Promise<Params> {
  const params: Params = Object.fromEntries(url.searchParams);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BadRequest('request body too large');
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks).toString('utf8').trim();
  if (!body) return params;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BadRequest('request body is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest('request body must be a JSON object');
  return { ...params, ...(parsed as Params) };
}

class MethodNotAllowed extends Error {}

function send(res: ServerResponse, status: number, body: unknown, int64AsString = false): void {
  const text = toNodeJson(body, int64AsString);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function listen(host: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  // The devnet never closes an idle kept-alive connection itself (0: no timeout), so a client never
  // sends on a socket the devnet is closing at that moment; clients close their own idle sockets. A
  // test that wants that race asks for it (POST /devnet/fault/reset).
  server.keepAliveTimeout = 0;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, ok);
  });
  const address = server.address() as AddressInfo;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}` };
}

/** Runs a devnet in this process: produces blocks, serves the node API and the dev endpoints. */
export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const node = new DevNode({ ...options, usdtContract: USDT_CONTRACT });
  let url = '';
  let replicaUrl: string | null = null;
  let balancerUrl: string | null = null;
  let replicaLag = options.replicaLag ?? 0;
  // POST /devnet/fault/reset: node-API requests still to be cut off unanswered, and how many were.
  let resetsLeft = 0;
  let resetsDone = 0;
  // POST /devnet/fault/throttle: node-API requests refused as over a provider's rate limit until `until`, and how many were.
  let throttle = { until: 0, status: 429, retryAfter: true, answered: 0 };
  const replica = new LaggingView(node, () => replicaLag);
  // The faucet pays through the chain layer over HTTP, like any wallet; set once listening.
  let chain: Chain | undefined;
  // POST /devnet/pay by request_id, the most recent first to go: a repeated id is answered from here.
  const payments = new Map<string, Promise<string>>();
  const pay = (request: PayRequest): Promise<string> => {
    const id = request.request_id;
    const known = id === undefined ? undefined : payments.get(id);
    if (known) return known;
    const paying = sendFromFaucet(chain!, options.faucet.privateKey, request).then((r) => r.txId);
    if (id !== undefined) {
      payments.set(id, paying);
      // A refused payment paid nothing: the same id may try again.
      paying.catch(() => payments.delete(id));
      if (payments.size > 10_000) payments.delete(payments.keys().next().value!);
    }
    return paying;
  };

  // The energy rental provider's emulation (docs/devnet.md, "Energy rental provider").
  const rental = new RentalProvider({
    chain: () => chain!,
    provider: options.rentalProvider ?? options.witness,
    faucet: options.faucet,
    blockMs: options.blockMs,
    inBlock: (txId) => node.findTx(txId) !== undefined,
  });

  const info = (): DevnetInfo => ({
    url,
    replicaUrl,
    balancerUrl,
    replicaLag,
    usdtContract: USDT_CONTRACT,
    payerContract: TronWeb.address.fromHex(PAYER_CONTRACT),
    fakeUsdtContract: TronWeb.address.fromHex(FAKE_USDT_CONTRACT),
    faucetAddress: options.faucet.address,
    blockMs: options.blockMs,
    solidifiedDepth: options.solidifiedDepth,
    headBlock: node.head().header.number,
    solidifiedBlock: node.solidNumber(),
    traffic: node.trafficSettings,
    parameters: parameterTable(),
  });

  const throttleJson = () => ({ until: throttle.until > Date.now() ? new Date(throttle.until).toISOString() : null, status: throttle.status, retryAfter: throttle.retryAfter, answered: throttle.answered });
  const faults = () => ({ faults: node.faults.list().map(faultJson), held: node.heldTransactions(), replicaLag, resets: { left: resetsLeft, done: resetsDone }, throttle: throttleJson() });
  const chainParameters = () => Object.fromEntries(MUTABLE_PARAMETERS.map((name) => [name, param(name).toString()]));

  /** The dev controls (docs/devnet.md, "Fault controls"); undefined when `path` is not one. */
  async function control(method: string, path: string, params: Params): Promise<unknown> {
    const post = <T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: import('zod').ZodError } }): T => {
      if (method !== 'POST') throw new MethodNotAllowed(`${path} takes POST`);
      const parsed = schema.safeParse(params);
      if (!parsed.success) throw new DevnetInputError(issues(parsed.error));
      return parsed.data;
    };
    switch (path) {
      case '/devnet/info':
        return info();
      case '/devnet/pay': {
        if (method !== 'POST') throw new MethodNotAllowed('POST {address, amount, currency}');
        const parsed = payRequestSchema.safeParse(params);
        if (!parsed.success) throw new DevnetInputError(issues(parsed.error));
        return { txid: await pay(parsed.data) };
      }
      case '/devnet/pay-via-contract':
        return { txid: (await payViaContract(url, options.faucet.privateKey, post(payViaContractSchema))).txId };
      case '/devnet/fake-token/pay':
        return { txid: (await payFakeToken(url, options.faucet.privateKey, post(fakeTokenPaySchema))).txId };
      case '/devnet/fault/drop':
        return faultJson(node.addFault(post(dropSchema)));
      case '/devnet/fault/delay':
        return faultJson(node.addFault(post(delaySchema)));
      case '/devnet/fault/fail':
        return faultJson(node.addFault(post(failSchema)));
      case '/devnet/fault/refuse':
        return faultJson(node.addFault(post(refuseSchema)));
      case '/devnet/fault/lag': {
        const { blocks } = post(lagSchema);
        if (!replicaUrl && !balancerUrl) throw new DevnetInputError('no replica is served: start the devnet with DEVNET_REPLICA_PORT and/or DEVNET_BALANCER_PORT');
        replicaLag = blocks;
        return { replicaLag, replicaUrl, balancerUrl };
      }
      case '/devnet/fault/throttle': {
        const t = post(throttleSchema);
        throttle = { until: Date.now() + t.seconds * 1000, status: t.status, retryAfter: t.retryAfter, answered: 0 };
        return { throttle: throttleJson() };
      }
      case '/devnet/fault/reset':
        resetsLeft = post(resetSchema).count;
        return { resets: { left: resetsLeft, done: resetsDone } };
      case '/devnet/faults':
        if (method === 'DELETE') {
          node.faults.clear();
          replicaLag = 0;
          resetsLeft = 0;
          throttle = { ...throttle, until: 0 };
        } else if (method !== 'GET') throw new MethodNotAllowed('GET or DELETE /devnet/faults');
        return faults();
      case '/devnet/traffic':
        if (method === 'GET') return { traffic: node.trafficSettings };
        return { traffic: node.setTraffic({ ...node.trafficSettings, ...post(trafficSchema) }) };
      case '/devnet/reorg':
        return node.reorg(post(reorgSchema));
      case '/devnet/solidify':
        post(solidifySchema);
        return node.solidify();
      case '/devnet/finality':
        if (method === 'GET') return { held: node.finalityHeldAt !== null, solidifiedBlock: node.solidNumber() };
        return node.holdFinality(post(finalitySchema).held);
      case '/devnet/set-balance': {
        const set = post(setBalanceSchema);
        const state = node.setBalance(set);
        return { address: TronWeb.address.fromHex(set.address), balanceSun: state.balance.toString(), usdtUnits: state.usdt.toString(), activated: state.createTime !== null };
      }
      case '/devnet/usdt/blacklist': {
        const set = post(blacklistSchema);
        const state = node.setBalance(set);
        return { address: TronWeb.address.fromHex(set.address), frozen: state.usdtFrozen };
      }
      case '/devnet/rental':
        if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') throw new MethodNotAllowed('GET, POST or DELETE /devnet/rental');
        try {
          return rental.control(method, params);
        } catch (err) {
          if (err instanceof RangeError) throw new DevnetInputError(err.message);
          throw err;
        }
      case '/devnet/chain-parameters': {
        if (method === 'GET') return chainParameters();
        const changes = post(chainParametersSchema);
        for (const name of MUTABLE_PARAMETERS) {
          const value = changes[name];
          if (value !== undefined) setParam(name, value);
        }
        return chainParameters();
      }
      default:
        return undefined;
    }
  }

  function handler(pick: () => ChainView, dev: boolean) {
    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const reqUrl = new URL(req.url ?? '/', 'http://devnet');
      const path = reqUrl.pathname.replace(/\/+$/, '') || '/';
      const params = await readParams(req, reqUrl);
      if (path === '/healthcheck') return send(res, 200, {});
      if (dev && path.startsWith('/devnet/')) {
        const reply = await control(req.method ?? 'GET', path, params);
        if (reply !== undefined) return send(res, 200, reply, true);
      }
      if (dev && path.startsWith('/api/v1/frontend/')) {
        // The provider account is funded and staked on first use, so a devnet that rents nothing has no trace of it.
        rental.prepare().catch((err: unknown) => console.error('devnet rental provider not prepared:', err));
        const reply = await rental.handle(req.method ?? 'GET', path, params, req.headers);
        return send(res, reply.status, reply.body);
      }
      const target = resolve(path);
      if (!target) return send(res, 404, { Error: `${path} is not served by the devnet` });
      // A node that closes a kept-alive connection as the request arrives: the client sees
      // "socket hang up" (ECONNRESET), as behind a load-balanced provider.
      if (resetsLeft > 0) {
        resetsLeft--;
        resetsDone++;
        return void req.socket.destroy();
      }
      const left = Math.ceil((throttle.until - Date.now()) / 1000);
      if (left > 0) {
        throttle.answered++;
        const text = JSON.stringify({ Error: `The key exceeds the frequency limit(30), and the query server is suspended for ${left}s` });
        res.writeHead(throttle.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(throttle.retryAfter ? { 'retry-after': String(left) } : {}) });
        return void res.end(text);
      }
      const int64AsString = req.method === 'GET' && reqUrl.searchParams.get('int64_as_string') === 'true';
      send(res, 200, target.route.handle(pick(), params, target.solid), int64AsString);
    }
    return (req: IncomingMessage, res: ServerResponse) => {
      handle(req, res).catch((e: unknown) => {
        if (res.headersSent) return;
        // Node API errors come back as 200 {"Error": ...}, as java-tron writes them.
        if (e instanceof BadRequest) return send(res, 200, { Error: e.message });
        if (e instanceof DevnetInputError) return send(res, 400, { error: e.message });
        if (e instanceof MethodNotAllowed) return send(res, 405, { error: e.message });
        if (e instanceof ChainError) return send(res, 502, { error: e.message });
        console.error('devnet:', e);
        send(res, 500, { Error: e instanceof Error ? e.message : String(e) });
      });
    };
  }

  const servers: Server[] = [];
  const main = await listen(options.host, options.port, handler(() => node, true));
  servers.push(main.server);
  url = main.url;
  if (options.replicaPort !== undefined) {
    const r = await listen(options.host, options.replicaPort, handler(() => replica, false));
    servers.push(r.server);
    replicaUrl = r.url;
  }
  if (options.balancerPort !== undefined) {
    // Round robin, as a load-balanced provider may send two calls in a row to nodes at different heights.
    let turn = 0;
    const b = await listen(options.host, options.balancerPort, handler(() => (turn++ % 2 === 0 ? node : replica), false));
    servers.push(b.server);
    balancerUrl = b.url;
  }
  chain = createChain({ fullNodeUrl: url, apiKey: null, usdtContract: USDT_CONTRACT, txExpirationMs: 60_000 });
  node.start();

  return {
    url,
    info,
    close: async () => {
      node.stop();
      rental.close();
      await Promise.all(
        servers.map((server) => {
          server.closeAllConnections();
          return new Promise<void>((ok) => server.close(() => ok()));
        }),
      );
    },
  };
}
