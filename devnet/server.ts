import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainError, createChain, type Chain } from '@/lib/chain';
import { BadRequest, resolve, type Params } from './api';
import type { DevnetEnv } from './config';
import { faucetKey, USDT_CONTRACT, witnessKey, type DevnetKey } from './genesis';
import { toNodeJson } from './json';
import { DevNode } from './node';
import { PARAMETERS } from './params';
import { payFromFaucet, payRequestSchema } from './pay';

export interface DevnetOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  blockMs: number;
  solidifiedDepth: number;
  faucet: DevnetKey;
  witness: DevnetKey;
}

export interface DevnetInfo {
  url: string;
  usdtContract: string;
  faucetAddress: string;
  blockMs: number;
  solidifiedDepth: number;
  headBlock: number;
  solidifiedBlock: number;
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

function send(res: ServerResponse, status: number, body: unknown, int64AsString = false): void {
  const text = toNodeJson(body, int64AsString);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Runs a devnet in this process: produces blocks, serves the node API and the dev endpoints. */
export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const node = new DevNode({ ...options, usdtContract: USDT_CONTRACT });
  let url = '';
  // The faucet pays through the chain layer over HTTP, like any wallet; set once listening.
  let chain: Chain | undefined;

  const info = (): DevnetInfo => ({
    url,
    usdtContract: USDT_CONTRACT,
    faucetAddress: options.faucet.address,
    blockMs: options.blockMs,
    solidifiedDepth: options.solidifiedDepth,
    headBlock: node.head().header.number,
    solidifiedBlock: node.solidNumber(),
    parameters: Object.fromEntries(Object.entries(PARAMETERS).map(([name, p]) => [name, { ...p, value: p.value.toString() }])),
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reqUrl = new URL(req.url ?? '/', 'http://devnet');
    const path = reqUrl.pathname.replace(/\/+$/, '') || '/';
    const params = await readParams(req, reqUrl);
    if (path === '/healthcheck') return send(res, 200, {});
    if (path === '/devnet/info') return send(res, 200, info());
    if (path === '/devnet/pay') {
      if (req.method !== 'POST') return send(res, 405, { error: 'POST {address, amount, currency}' });
      const parsed = payRequestSchema.safeParse(params);
      if (!parsed.success) return send(res, 400, { error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      return send(res, 200, { txid: (await payFromFaucet(chain!, options.faucet.privateKey, parsed.data)).txId });
    }
    const target = resolve(path);
    if (!target) return send(res, 404, { Error: `${path} is not served by the devnet` });
    const int64AsString = req.method === 'GET' && reqUrl.searchParams.get('int64_as_string') === 'true';
    send(res, 200, target.route.handle(node, params, target.solid), int64AsString);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return;
      // Node API errors come back as 200 {"Error": ...}, as java-tron writes them.
      if (e instanceof BadRequest) return send(res, 200, { Error: e.message });
      if (e instanceof ChainError) return send(res, 502, { error: e.message });
      console.error('devnet:', e);
      send(res, 500, { Error: e instanceof Error ? e.message : String(e) });
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, ok);
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  chain = createChain({ fullNodeUrl: url, apiKey: null, usdtContract: USDT_CONTRACT, txExpirationMs: 60_000 });
  node.start();

  return {
    url,
    info,
    close: async () => {
      node.stop();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
