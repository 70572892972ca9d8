import { createChain } from '@/lib/chain';
import { devnetUrl, parseDevnetEnv } from './config';
import { faucetKey } from './genesis';
import { payFromFaucet, payRequestSchema } from './pay';
import { devnetOptions, startDevnet, type DevnetInfo } from './server';

const USAGE = `usage:
  npm run devnet -- start
  npm run devnet -- pay <address> <amount> <TRX|USDT>
  npm run devnet -- info`;

async function start(): Promise<void> {
  const env = parseDevnetEnv(process.env);
  const options = devnetOptions(env);
  const devnet = await startDevnet(options);
  const info = devnet.info();
  console.log(`Tron devnet listening on ${devnet.url}`);
  console.log(`  USDT contract   ${info.usdtContract}`);
  console.log(`  faucet address  ${info.faucetAddress}`);
  console.log(`  faucet key      ${options.faucet.privateKey}`);
  console.log(`  blocks          every ${info.blockMs} ms, solidified ${info.solidifiedDepth} deep, head #${info.headBlock}`);
  console.log(`  data            ${options.dataDir}`);
  // One machine-readable line for scripts and the test helper.
  console.log(`DEVNET_READY ${JSON.stringify({ url: devnet.url, usdtContract: info.usdtContract, faucetAddress: info.faucetAddress })}`);
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
  const env = parseDevnetEnv(process.env);
  const url = devnetUrl(env);
  const info = await devnetInfo(url);
  const faucet = faucetKey(env);
  if (faucet.address !== info.faucetAddress) throw new Error(`the devnet's faucet is ${info.faucetAddress}; set DEVNET_MNEMONIC or DEVNET_FAUCET_PRIVATE_KEY as when it was started`);
  const chain = createChain({ fullNodeUrl: url, apiKey: null, usdtContract: info.usdtContract, txExpirationMs: 60_000 });
  const { txId } = await payFromFaucet(chain, faucet.privateKey, request.data);
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

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'start') return start();
  if (command === 'pay') return pay(args);
  if (command === 'info') {
    console.log(JSON.stringify(await devnetInfo(devnetUrl(parseDevnetEnv(process.env))), null, 2));
    return;
  }
  throw new Error(USAGE);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
