import { config } from '@/lib/config';
import { migrate } from '@/lib/db/migrate';

const applied = await migrate(config().DATABASE_URL);
console.log(applied.length ? `migrate: applied ${applied.join(', ')}` : 'migrate: database is up to date');
