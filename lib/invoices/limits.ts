/*
 * Input limits of an invoice (spec 4.1), enforced by lib/invoices/schemas.ts
 * and shown by the dashboard's form. A file of plain constants: client
 * components import it, and schemas.ts pulls in server-only modules (the
 * configuration, node:net) that a browser bundle cannot hold.
 */

export const MAX_ORDER_ID = 256;
export const MAX_DESCRIPTION = 2000;
export const MAX_EXPIRY_MINUTES = 10_080; // one week
