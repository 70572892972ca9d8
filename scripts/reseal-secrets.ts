import { db } from '@/lib/db/client';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { resealSecrets } from '@/lib/crypto/reseal';

const counts = await resealSecrets(db(), masterKeyRing());
console.log(`reseal: ${counts.invoices} invoice keys and ${counts.merchants} webhook secrets and ${counts.users} authenticator secrets re-sealed with the current MASTER_KEY`);
await db().$disconnect();
