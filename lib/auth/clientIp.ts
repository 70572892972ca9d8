/**
 * The header carrying the caller's address: set by server.ts from the socket
 * (and trusted proxies), any client-sent copy overwritten. Authentication reads
 * it for the IP whitelist and the sign-in throttle.
 */
export const CLIENT_IP_HEADER = 'x-invoicing-client-ip';
