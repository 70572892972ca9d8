import { createChain } from '@/lib/chain';
import { devnetConfig, devnetUrl } from '@/lib/config';
import { faucetKey } from './genesis';
import { payRequestSchema, sendFromFaucet } from './pay';
import { devnetOptions, startDevnet, type DevnetInfo } from './server';

const USAGE = `usage:
  npm run devnet -- start
  npm run devnet -- pay <address> <amount> <TRX|USDT>
  npm run devnet -- pay-via-contract <address> <amount> <TRX|USDT> [--reverted true]
  npm run devnet -- fake-token pay <address> <amount>
  npm run devnet -- info
  npm run devnet -- traffic [<txPerBlock> [--usdt-share S]]
  npm run devnet -- fault drop  [--count N] [--from T...] [--to T...]
  npm run devnet -- fault delay --blocks K [--count N] [--from T...] [--to T...]
  npm run devnet -- fault fail  --result OUT_OF_ENERGY|REVERT [--count N] [--from T...] [--to T...]
  npm run devnet -- fault refuse [--code CONTRACT_VALIDATE_ERROR] [--message TEXT] [--count N] [--from T...] [--to T...]
  npm run devnet -- fault lag <blocks>
  npm run devnet -- fault reset [--count N]
  npm run devnet -- fault throttle --seconds N [--status 429|403|503] [--retry-after false]
  npm run devnet -- fault reorg --depth N [--leave-out txid,...] [--order txid,...]
  npm run devnet -- fault solidify
  npm run devnet -- fault finality --held true|false
  npm run devnet -- fault set-balance <address> [--balance-sun N] [--usdt-units N]
  npm run devnet -- fault usdt-blacklist <address> [--frozen false]
  npm run devnet -- fault chain-parameters [--energy-fee-sun N] [--bandwidth-fee-sun N] [--usdt-energy-factor N] [--unfreeze-delay-days N] [--network-energy-weight-trx N]
  npm run devnet -- fault list
  npm run devnet -- fault clear`;

async function start(): Promise<void> {
  const env = devnetConfig();
  const options = devnetOptions(env);
  const devnet = await startDevnet(options);
  const info = devnet.info();
  console.log(`Tron devnet listening on ${devnet.url}`);
  console.log(`  USDT contract   ${info.usdtContract}`);
  console.log(`  faucet address  ${info.faucetAddress}`);
  console.log(`  faucet key      ${options.faucet.privateKey}`);
  console.log(`  blocks          every ${info.blockMs} ms, solidified ${info.solidifiedDepth} deep, head #${info.headBlock}`);
  console.log(`  data            ${options.dataDir}`);
  if (info.traffic.txPerBlock > 0) console.log(`  traffic         ${info.traffic.txPerBlock} transactions a block, ${info.traffic.usdtShare * 100}% USDT`);
  // One machine-readable line for scripts and the test helper.
  if (info.replicaUrl) console.log(`  replica         ${info.replicaUrl} (${info.replicaLag} blocks behind)`);
  if (info.balancerUrl) console.log(`  balancer        ${info.balancerUrl} (alternates head and replica)`);
  const replicas = { ...(info.replicaUrl ? { replicaUrl: info.replicaUrl } : {}), ...(info.balancerUrl ? { balancerUrl: info.balancerUrl } : {}) };
  console.log(`DEVNET_READY ${JSON.stringify({ url: devnet.url, usdtContract: info.usdtContract, faucetAddress: info.faucetAddress, ...replicas })}`);
  const stop = () => {
    devnet.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function devnetInfo(url: string): Promise<DevnetInfo> {
  const res = await fetch(`${url}/devnet/info`).catch((e: unknown) => {
    throw new Error(`no devnet at ${url} (${e instanceof Error ? e.message : String(e)}); start one with: npm run devnet -- start`);
  });
  if (!res.ok) throw new Error(`${url}/devnet/info answered ${res.status}`);
  return (await res.json()) as DevnetInfo;
}

async function pay(args: string[]): Promise<void> {
  const [address, amount, currency] = args;
  const request = payRequestSchema.safeParse({ address, amount, currency: currency?.toUpperCase() });
  if (!request.success) throw new Error(`${request.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n')}\n${USAGE}`);
  const env = devnetConfig();
  const url = devnetUrl(env);
  const info = await devnetInfo(url);
  const faucet = faucetKey(env);
  if (faucet.address !== info.faucetAddress) throw new Error(`the devnet's faucet is ${info.faucetAddress}; set DEVNET_MNEMONIC or DEVNET_FAUCET_PRIVATE_KEY as when it was started`);
  const chain = createChain({ fullNodeUrl: url, apiKey: null, usdtContract: info.usdtContract, txExpirationMs: 60_000 });
  const { txId } = await sendFromFaucet(chain, faucet.privateKey, request.data);
  console.log(`sent ${request.data.amount} ${request.data.currency} to ${request.data.address}: ${txId}`);
  const deadline = Date.now() + 30_000 + info.blockMs * 2;
  for (;;) {
    const status = await chain.getTransactionStatus(txId);
    if (status.status !== 'unknown') {
      console.log(`in block #${status.blockNumber} (${status.status}${status.result ? `, ${status.result}` : ''}); solidified once ${info.solidifiedDepth} blocks are on top of it`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`${txId} is not in a block yet`);
    await new Promise((r) => setTimeout(r, Math.min(500, info.blockMs)));
  }
}

/** `--leave-out a,b` -> { leaveOut: "a,b" }: options become the JSON body of the control, as curl would send it. */
function flags(args: string[]): Record<string, string> {
  const body: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const flag = /^--([a-z-]+)$/.exec(args[i]!);
    const value = args[i + 1];
    if (!flag || value === undefined) throw new Error(`expected --option value, got ${args.slice(i).join(' ')}\n${USAGE}`);
    body[flag[1]!.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())] = value;
    i++;
  }
  return body;
}

/** `fault ...`: one request to the running devnet's control endpoints; prints the reply. */
async function fault(args: string[]): Promise<void> {
  const [what, ...rest] = args;
  const url = devnetUrl();
  let request: { method: string; path: string; body?: Record<string, unknown> };
  let body: Record<string, unknown>;
  switch (what) {
    case 'drop':
    case 'delay':
    case 'fail':
    case 'refuse':
    case 'reset':
      request = { method: 'POST', path: `fault/${what}`, body: flags(rest) };
      break;
    case 'throttle': {
      const { status, ...more } = flags(rest);
      request = { method: 'POST', path: 'fault/throttle', body: { ...more, ...(status === undefined ? {} : { status: Number(status) }) } };
      break;
    }
    case 'lag':
      request = { method: 'POST', path: 'fault/lag', body: { blocks: rest[0] ?? '' } };
      break;
    case 'reorg':
      request = { method: 'POST', path: 'reorg', body: flags(rest) };
      break;
    case 'solidify':
      request = { method: 'POST', path: 'solidify', body: {} };
      break;
    case 'finality':
      request = { method: 'POST', path: 'finality', body: flags(rest) };
      break;
    case 'set-balance':
      request = { method: 'POST', path: 'set-balance', body: { address: rest[0] ?? '', ...flags(rest.slice(1)) } };
      break;
    case 'usdt-blacklist':
      request = { method: 'POST', path: 'usdt/blacklist', body: { address: rest[0] ?? '', ...flags(rest.slice(1)) } };
      break;
    case 'chain-parameters':
      request = rest.length ? { method: 'POST', path: 'chain-parameters', body: flags(rest) } : { method: 'GET', path: 'chain-parameters' };
      break;
    case 'pay-via-contract': {
      const { reverted, ...more } = flags(rest.slice(3));
      body = { address: rest[0] ?? '', amount: rest[1] ?? '', currency: (rest[2] ?? '').toUpperCase(), ...more, ...(reverted === undefined ? {} : { reverted: reverted === 'true' }) };
      request = { method: 'POST', path: 'pay-via-contract', body };
      break;
    }
    case 'traffic':
      request = rest.length ? { method: 'POST', path: 'traffic', body: { txPerBlock: rest[0], ...flags(rest.slice(1)) } } : { method: 'GET', path: 'traffic' };
      break;
    case 'fake-token':
      if (rest[0] !== 'pay') throw new Error(USAGE);
      request = { method: 'POST', path: 'fake-token/pay', body: { address: rest[1] ?? '', amount: rest[2] ?? '' } };
      break;
    case 'list':
      request = { method: 'GET', path: 'faults' };
      break;
    case 'clear':
      request = { method: 'DELETE', path: 'faults' };
      break;
    default:
      throw new Error(USAGE);
  }
  const res = await fetch(`${url}/devnet/${request.path}`, {
    method: request.method,
    ...(request.body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) } : {}),
  }).catch((e: unknown) => {
    throw new Error(`no devnet at ${url} (${e instanceof Error ? e.message : String(e)}); start one with: npm run devnet -- start`);
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${request.path}: ${res.status} ${text}`);
  console.log(JSON.stringify(JSON.parse(text), null, 2));
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'start') return start();
  if (command === 'pay') return pay(args);
  if (command === 'fault') return fault(args);
  // Payments through the devnet's contracts (docs/devnet.md): one control request each, like a fault.
  if (command === 'pay-via-contract' || command === 'fake-token' || command === 'traffic') return fault([command, ...args]);
  if (command === 'info') {
    console.log(JSON.stringify(await devnetInfo(devnetUrl()), null, 2));
    return;
  }
  throw new Error(USAGE);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
