import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import { ensureDemoMerchant } from '@/lib/merchants/demo';

const { DEMO_API_KEY: key, DEMO_DASHBOARD_PASSWORD: password } = config();
if (!key) {
  console.error('seed: set DEMO_API_KEY to the key the demo merchant should have');
  process.exit(1);
}
const merchant = await ensureDemoMerchant(db(), key, password);
console.log(`seed: demo merchant ${merchant.email} (id ${merchant.id}) has the DEMO_API_KEY${password ? ', its owner and finance@example.com (role finance) the DEMO_DASHBOARD_PASSWORD' : ''}`);
await db().$disconnect();
