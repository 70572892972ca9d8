export interface paths {
    "/payment/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an invoice
         * @description A body with `type` creates an invoice. The same path also answers a mass payout estimate, as the specification names it there too: a body with no `type` and a `target_wallets` or `currency` is answered as `POST /payment/multiple_transfer/calculate` (use that path for estimates). A trailing slash is accepted on every path.
         */
        post: operations["createInvoice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List invoices */
        get: operations["listInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Cancel an invoice
         * @description Only an ACTIVE invoice can be canceled; a mass payout only until its top-up has arrived.
         */
        delete: operations["cancelInvoice"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/get/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one invoice */
        get: operations["getInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/multiple_transfer/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a mass payout */
        post: operations["createPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/multiple_transfer/calculate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Calculate the cost of a mass payout */
        post: operations["estimatePayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transaction/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List transactions
         * @description Never 404: a filter that matches nothing gives `count: 0`.
         */
        get: operations["listTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/transaction/{trn_hash}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one transaction */
        get: operations["getTransaction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/{id}/refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund a sale, in full or in part
         * @description Not in the specification. The merchant funds a refund (the service forwarded the sale to them): once its address is known, a one-target mass payout with no service fee is created (`payout`), and the refund goes out once `topup_amount` has arrived at `topup_address`. With `address`, the merchant names it; without, the answer's `claim_url` is a page where the customer enters it. At most what the invoice received in `currency` (money the service holds for it included), less its other refunds still standing. Held money pays for the refund first (`funded_from_held`) when the key also has `payouts:write`; with `refunds:write` alone the merchant tops up the whole.
         */
        post: operations["createRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payment/{id}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an invoice's refunds
         * @description Not in the specification. Oldest first; all of them, not paged (an invoice has few).
         */
        get: operations["listRefunds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one refund */
        get: operations["getRefund"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Cancel a refund
         * @description While it waits for its address, or for its top-up (its payout is canceled with it, until the top-up has arrived). Its amount can then be refunded again.
         */
        delete: operations["cancelRefund"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/held_payment/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List held payments
         * @description Not in the specification. The payments the service keeps at their address instead of forwarding them (`held.reason` says why: paid after the invoice was canceled, a token the invoice does not take, too small to forward, or a forward that failed), newest first. Release one with `POST /held_payment/{trn_hash}/release`.
         */
        get: operations["listHeldPayments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/held_payment/{trn_hash}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one held or released payment
         * @description Not in the specification. A payment held now (`held` set, `release` null) or released earlier (`release` says what became of it, `sent` the transfer once final).
         */
        get: operations["getHeldPayment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/held_payment/{trn_hash}/release": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release a held payment: forward it, or return it to an address
         * @description Not in the specification; the dashboard's release, with its rules. FORWARD sends the funds to the merchant's target wallet as any payment (screened first when AML is on and they never were); REFUND returns them to `address`, its network cost taken out of them. The address must be a Tron account, not a contract, and for USDT not frozen by Tether.
         */
        post: operations["releaseHeldPayment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/merchant": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Merchant account information */
        get: operations["getMerchant"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Current conversion rate */
        get: operations["getRate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    invoice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An invoice changed status, or a static address received a payment
         * @description Sent to the invoice's `webhook_url`, or else the merchant's default, when an invoice becomes COMPLETED, OVERPAID, UNDERPAID, TIMEOUT, AML_FAILED or ERROR, and for each payment a static address (`MULTIPLE`) receives. The body is the Invoice object, as `GET /payment/get/{id}` answers it.
         */
        post: operations["invoiceWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "payment.held": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A payment is held for the merchant to forward or return (opt-in)
         * @description Off by default (dashboard: Settings, "Send a webhook when a payment is held"). Sent when the worker keeps a payment at its address: it came after the invoice was canceled, in a token the invoice does not take, too small to forward, or could not be forwarded. Told apart from the invoice webhook by its `event` field.
         */
        post: operations["paymentHeldWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "refund.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A refund was made (opt-in)
         * @description Off by default (dashboard: Settings, "Send webhooks about refunds"). Sent to the refunded invoice's `webhook_url`, or else the merchant's default; told apart from the invoice webhook by its `event` field.
         */
        post: operations["refundCreatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "refund.claimed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The customer entered the refund's address: top it up (opt-in)
         * @description Off by default (dashboard: Settings, "Send webhooks about refunds"). Sent to the refunded invoice's `webhook_url`, or else the merchant's default; told apart from the invoice webhook by its `event` field.
         */
        post: operations["refundClaimedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "refund.sent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A refund reached the customer (opt-in)
         * @description Off by default (dashboard: Settings, "Send webhooks about refunds"). Sent to the refunded invoice's `webhook_url`, or else the merchant's default; told apart from the invoice webhook by its `event` field.
         */
        post: operations["refundSentWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "refund.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A refund could not be sent (opt-in)
         * @description Off by default (dashboard: Settings, "Send webhooks about refunds"). Sent to the refunded invoice's `webhook_url`, or else the merchant's default; told apart from the invoice webhook by its `event` field.
         */
        post: operations["refundFailedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        CreateInvoiceRequest: {
            /**
             * @description SINGLE (temporary address) or MULTIPLE (static address); case-insensitive
             * @enum {string}
             */
            type: "SINGLE" | "MULTIPLE";
            /** @description USD, > 0, at most 6 decimals, at most 1,000,000,000; a number or a decimal string. Required for SINGLE, ignored for MULTIPLE. */
            amount?: number | string;
            /**
             * @description Accepted tokens, case-insensitive; duplicates collapse.
             * @example [
             *       "TRX",
             *       "USDT"
             *     ]
             */
            currencies?: ("TRX" | "USDT")[] | string;
            /** @description SINGLE only: 1 to 10080 (an integer or digit string); default DEFAULT_EXPIRY_MINUTES (60). Ignored for MULTIPLE. */
            expiry_minutes?: number | string;
            /** @description SINGLE only: true adds the forwarding fee to what the customer pays. Either spelling; both must agree. */
            client_comission?: boolean | null;
            /** @description The samples' spelling of client_comission */
            client_commission?: boolean | null;
            order_id?: string | null;
            /** @description Absolute http(s) URL notified on status changes */
            webhook_url?: string | null;
            /** @description SINGLE only: absolute http(s) URL the customer is sent to after paying. Ignored for MULTIPLE. */
            redirect_url?: string | null;
            description?: string | null;
        };
        /** @description At most 1,000 targets, each address once; amounts in the payout token, > 0, at most 6 decimals. */
        PayoutRequest: {
            target_wallets: {
                address: string;
                amount: number | string;
            }[];
            /**
             * @description The payout token; case-insensitive
             * @enum {string}
             */
            currency: "TRX" | "USDT";
        };
        ReleaseRequest: {
            /**
             * @description FORWARD: to the merchant's target wallet, as any payment; REFUND: back to `address`. Either case.
             * @enum {string}
             */
            action: "FORWARD" | "REFUND";
            /** @description Where a REFUND goes (T...); not read for a FORWARD */
            address?: string;
        };
        RefundRequest: {
            /**
             * @description The token refunded; case-insensitive
             * @enum {string}
             */
            currency: "TRX" | "USDT";
            /** @description What the customer receives, in `currency`; at most what the invoice received in it, less its other refunds */
            amount: number | string;
            /** @description Where to send it (T...); without it, the answer's claim_url lets the customer enter one */
            address?: string | null;
            /** @description A note for the merchant's records; never shown to the customer */
            reason?: string | null;
        };
        /** @description An invoice; also the invoice webhook's payload */
        Invoice: {
            id: number;
            /** @enum {string} */
            status: "ACTIVE" | "COMPLETED" | "CANCELED" | "TIMEOUT" | "ERROR" | "AML_FAILED" | "OVERPAID" | "UNDERPAID";
            /** @enum {string} */
            type: "SINGLE" | "MULTIPLE" | "MULTIPLE_TRANSFER";
            /** @description {PAYMENT_PAGE_BASE}/payment/<id> */
            paymentURL: string;
            /** @description USD; 0 for MULTIPLE; for a mass payout the USD value of what is sent */
            amount: number;
            currencies: ("TRX" | "USDT")[];
            /**
             * @description MULTIPLE_TRANSFER only: the payout token (also the one entry of `currencies`)
             * @enum {string}
             */
            currency?: "TRX" | "USDT";
            /** @description Amount to pay in each accepted token; for a mass payout the top-up */
            currencies_amounts: {
                [key: string]: number;
            };
            /** @description input: received; output: forwarded (or, for a mass payout, sent) */
            transfer_amounts: {
                /** @description Token (TRX, USDT) to amount, a key per accepted token */
                input: {
                    [key: string]: number;
                };
                /** @description Token (TRX, USDT) to amount, a key per accepted token */
                output: {
                    [key: string]: number;
                };
            };
            /** @description Service fee kept, in the token paid; null until a payment is processed */
            cost: number | null;
            /** @description Addition to the spec: what the network cost for the invoice's sends, in TRX (burned for energy, bandwidth and activations, and rented energy's price), whoever paid it */
            network_cost_trx: number;
            order_id: string | null;
            address: string;
            /** @description Spelling of the spec tables; always equal to client_commission */
            client_comission: boolean;
            /** @description Spelling of the spec samples; always equal to client_comission */
            client_commission: boolean;
            webhook_url: string | null;
            redirect_url: string | null;
            description: string | null;
            merchant_contact: string;
            /** @description The submitted list on MULTIPLE_TRANSFER, {} otherwise */
            target_wallets: {
                address: string;
                /** @description In the payout token */
                amount: number;
            }[] | Record<string, never>;
            /** @description MULTIPLE_TRANSFER only: targets that could not be paid (status ERROR) */
            failed_targets?: {
                /** @description Position in target_wallets */
                index: number;
                address: string;
                amount: number;
                error: string;
            }[];
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            expired_at: string;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
        };
        /** @description GET /payment/list */
        InvoicePage: {
            count: number;
            /** @description Absolute URL of the next page (keeps every filter), or null */
            next: string | null;
            previous: string | null;
            results: components["schemas"]["Invoice"][];
        };
        /** @description A transaction at one of the merchant's addresses */
        Transaction: {
            trn_hash: string;
            /** @description Null for a transaction of no invoice (e.g. a balance top-up) */
            invoice: number | null;
            /**
             * @description What the transaction was for; the energy pool's own operations are never listed
             * @enum {string}
             */
            type: "PAYMENT" | "TRANSFER" | "TOPUP" | "ACTIVATION";
            from_address: string;
            to_address: string;
            /** @description In `currency` */
            amount: number;
            /** @enum {string} */
            currency: "TRX" | "USDT";
            aml_check: components["schemas"]["AmlCheck"] | null;
            /** @description An addition to the transaction: set while the payment is held; its merchant releases it from the dashboard or with POST /held_payment/{trn_hash}/release */
            held: {
                /** @description Why the service keeps the funds at the address instead of forwarding them */
                reason: string;
            } | null;
            /** @description UUID shared by an incoming payment and its forwarding */
            event_id: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
        };
        AmlCheck: {
            id: string;
            /** @enum {string} */
            status: "SUCCESS" | "FAILED" | "TIMEOUT" | "ERROR";
            risk_score: number;
            /** @description low, medium or high */
            risk_level: string;
            exposure: {
                [key: string]: number;
            };
            /** @description PDF report; empty when the check did not complete */
            report_url: string;
            /** @description TRX */
            cost: number;
            completed: boolean;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
        };
        /** @description GET /transaction/list (the spec shows no envelope; the invoice list's is used) */
        TransactionPage: {
            count: number;
            /** @description Absolute URL of the next page (keeps every filter), or null */
            next: string | null;
            previous: string | null;
            results: components["schemas"]["Transaction"][];
        };
        /** @description The merchant's account */
        Merchant: {
            email: string;
            /** @description Service-fee balance, TRX */
            balance: number;
            /** @description Where payments are forwarded; null until set */
            target_wallet_address: string | null;
            topup_wallet_address: string;
            activation_wallet_address: string;
            /** @description TRX */
            activation_balance: number;
            aml_check: boolean;
            aml_risk_limit: number;
        };
        /** @description A token's rate in USD */
        Rate: {
            /** @enum {string} */
            currency: "TRX" | "USDT";
            /** @description USD per token */
            rate: number;
            /** @description TOPUP_FEE_PERCENT: percentage charged on USDT balance top-ups */
            fee: number;
        };
        /** @description What a mass payout costs, and the parts it is made of */
        PayoutEstimate: {
            /** @description USD value of the amounts to send */
            amount: number;
            /** @enum {string} */
            currency: "TRX" | "USDT";
            target_wallets: {
                address: string;
                /** @description In the payout token */
                amount: number;
            }[];
            need_energy: number;
            need_bandwidth: number;
            /** @description service_fee + network_fee with GAS_MARGIN_PERCENT, in the payout token */
            cost: number;
            activation_cost: number;
            service_fee: number;
            network_fee: number;
            accounts_to_activate: number;
            /** @description Sum of the amounts + cost + activation_cost */
            topup_amount: number;
            /** @description Addition: what a USDT payout's energy is quoted with (the service's staked pool, rented energy, or burned TRX); the run follows it. null for TRX */
            energy_source: ("POOL" | "RENTAL" | "BURN") | null;
        };
        /** @description The opt-in payment.held webhook: a payment kept at its address for the merchant to forward or return */
        PaymentHeldEvent: {
            trn_hash: string;
            /** @description Null for a transaction of no invoice (e.g. a balance top-up) */
            invoice: number | null;
            /**
             * @description What the transaction was for; the energy pool's own operations are never listed
             * @enum {string}
             */
            type: "PAYMENT" | "TRANSFER" | "TOPUP" | "ACTIVATION";
            from_address: string;
            to_address: string;
            /** @description In `currency` */
            amount: number;
            /** @enum {string} */
            currency: "TRX" | "USDT";
            aml_check: components["schemas"]["AmlCheck"] | null;
            /** @description An addition to the transaction: set while the payment is held; its merchant releases it from the dashboard or with POST /held_payment/{trn_hash}/release */
            held: {
                /** @description Why the service keeps the funds at the address instead of forwarding them */
                reason: string;
            } | null;
            /** @description UUID shared by an incoming payment and its forwarding */
            event_id: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
            /** @constant */
            event: "payment.held";
            /**
             * @description Why, as a code: paid after the invoice was canceled, a token the invoice does not accept, too small to forward, anything else
             * @enum {string}
             */
            held_reason: "canceled" | "token" | "dust" | "other";
        };
        /** @description A payment the service keeps at its address (`held` set) or kept until the merchant released it (`release` set) */
        HeldPayment: {
            trn_hash: string;
            /** @description Null for a transaction of no invoice (e.g. a balance top-up) */
            invoice: number | null;
            /**
             * @description What the transaction was for; the energy pool's own operations are never listed
             * @enum {string}
             */
            type: "PAYMENT" | "TRANSFER" | "TOPUP" | "ACTIVATION";
            from_address: string;
            to_address: string;
            /** @description In `currency` */
            amount: number;
            /** @enum {string} */
            currency: "TRX" | "USDT";
            aml_check: components["schemas"]["AmlCheck"] | null;
            /** @description An addition to the transaction: set while the payment is held; its merchant releases it from the dashboard or with POST /held_payment/{trn_hash}/release */
            held: {
                /** @description Why the service keeps the funds at the address instead of forwarding them */
                reason: string;
            } | null;
            /** @description UUID shared by an incoming payment and its forwarding */
            event_id: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
            /** @description Why it is held, as a code (as the payment.held webhook has it): paid after the invoice was canceled, a token the invoice does not accept, too small to forward, anything else (`held.reason` says more); null once released */
            held_reason: ("canceled" | "token" | "dust" | "other") | null;
            /** @description Null while the payment is held; once released, what became of it */
            release: components["schemas"]["Release"] | null;
        };
        /** @description GET /held_payment/list */
        HeldPaymentPage: {
            count: number;
            /** @description Absolute URL of the next page (keeps every filter), or null */
            next: string | null;
            previous: string | null;
            results: components["schemas"]["HeldPayment"][];
        };
        Release: {
            /** @enum {string} */
            action: "FORWARD" | "REFUND";
            /** @description Where the funds go: the address named for a return; for a forward the wallet it was sent to, null before it is sent */
            to_address: string | null;
            /**
             * @description What it came to: the payment's own outcome (a forward released unscreened may be returned by the AML rules)
             * @enum {string}
             */
            state: "IN_PROGRESS" | "FORWARDED" | "RETURNED" | "FAILED";
            /** @description The transfer that moved them, once final */
            sent: {
                trn_hash: string;
                /** @description On a block explorer; null on the devnet */
                explorer_url: string | null;
            } | null;
        };
        /** @description A merchant's refund of a sale */
        Refund: {
            id: number;
            /** @description The invoice refunded */
            invoice: number;
            /**
             * @description WAITING_ADDRESS (the customer has not entered an address at claim_url), WAITING_FUNDS (top up topup_amount to topup_address), SENDING, SENT, FAILED (see failure_reason), CANCELED
             * @enum {string}
             */
            status: "WAITING_ADDRESS" | "WAITING_FUNDS" | "SENDING" | "SENT" | "FAILED" | "CANCELED";
            /** @description Why it FAILED; null otherwise */
            failure_reason: string | null;
            /** @enum {string} */
            currency: "TRX" | "USDT";
            /** @description What the customer receives, in `currency` */
            amount: number;
            /** @description Where it goes; null until the customer enters one */
            address: string | null;
            /** @description The page where the customer enters their address and follows the refund; null when the merchant gave the address */
            claim_url: string | null;
            /** @description The merchant's note */
            reason: string | null;
            /** @description The one-target mass payout (MULTIPLE_TRANSFER invoice) that sends it, once the address is known */
            payout: number | null;
            /** @description Where the merchant sends the refund's money; null until the address is known */
            topup_address: string | null;
            /** @description What is still to be sent to topup_address: the amount and its network cost, less what arrived and what held money (funded_from_held) is bringing; 0 once funded; null until the address is known */
            topup_amount: number | null;
            /** @description The network cost (with margin and the temporary address's activation, and the release of any held money funding it), in `currency`, paid by the merchant; no service fee; null until the address is known */
            cost: number | null;
            /** @description Money the service held for the invoice (a payment after cancel or expiry, dust, a refused forward) that funds this refund before any top-up; null when none does */
            funded_from_held: {
                /** @description The held payments (their trn_hash) released into the refund's payout, each whole */
                payments: string[];
                /** @description What those payments hold, in `currency` */
                amount: number;
                /** @description The network cost of releasing them into the payout (estimated until their send is built), in `currency`; part of `cost` */
                cost: number;
            } | null;
            /** @description The transfer to the customer, once sent */
            trn_hash: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
        };
        /** @description The opt-in refund webhooks: refund.created, refund.claimed, refund.sent and refund.failed */
        RefundEvent: {
            id: number;
            /** @description The invoice refunded */
            invoice: number;
            /**
             * @description WAITING_ADDRESS (the customer has not entered an address at claim_url), WAITING_FUNDS (top up topup_amount to topup_address), SENDING, SENT, FAILED (see failure_reason), CANCELED
             * @enum {string}
             */
            status: "WAITING_ADDRESS" | "WAITING_FUNDS" | "SENDING" | "SENT" | "FAILED" | "CANCELED";
            /** @description Why it FAILED; null otherwise */
            failure_reason: string | null;
            /** @enum {string} */
            currency: "TRX" | "USDT";
            /** @description What the customer receives, in `currency` */
            amount: number;
            /** @description Where it goes; null until the customer enters one */
            address: string | null;
            /** @description The page where the customer enters their address and follows the refund; null when the merchant gave the address */
            claim_url: string | null;
            /** @description The merchant's note */
            reason: string | null;
            /** @description The one-target mass payout (MULTIPLE_TRANSFER invoice) that sends it, once the address is known */
            payout: number | null;
            /** @description Where the merchant sends the refund's money; null until the address is known */
            topup_address: string | null;
            /** @description What is still to be sent to topup_address: the amount and its network cost, less what arrived and what held money (funded_from_held) is bringing; 0 once funded; null until the address is known */
            topup_amount: number | null;
            /** @description The network cost (with margin and the temporary address's activation, and the release of any held money funding it), in `currency`, paid by the merchant; no service fee; null until the address is known */
            cost: number | null;
            /** @description Money the service held for the invoice (a payment after cancel or expiry, dust, a refused forward) that funds this refund before any top-up; null when none does */
            funded_from_held: {
                /** @description The held payments (their trn_hash) released into the refund's payout, each whole */
                payments: string[];
                /** @description What those payments hold, in `currency` */
                amount: number;
                /** @description The network cost of releasing them into the payout (estimated until their send is built), in `currency`; part of `cost` */
                cost: number;
            } | null;
            /** @description The transfer to the customer, once sent */
            trn_hash: string | null;
            /**
             * Format: date-time
             * @description ISO 8601 with six fractional digits and +00:00
             * @example 2026-11-23T01:44:15.072000+00:00
             */
            created_at: string;
            /**
             * @description refund.created; refund.claimed (the customer entered the address: top it up); refund.sent; refund.failed
             * @enum {string}
             */
            event: "refund.created" | "refund.claimed" | "refund.sent" | "refund.failed";
        };
        /** @description Spec part 7: {"detail": ...} */
        Error: {
            detail: string;
            /** @description Added where the detail is fixed or says too much: on a 403 from a caller whose IP address is not whitelisted, why, alone (the detail says it after the spec's `Invalid API key: `); on a 400 for an invoice amount too small to forward, the minimum in short ("The minimum for USDT is 2.54 USD.") */
            reason?: string;
            /** @description 400 on invalid fields: every offending field (`target_wallets[3].address`) to its messages */
            errors?: {
                [key: string]: string[];
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createInvoice: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional (not in the spec). A unique key per request, e.g. a UUID: a repeat of the same request with the same key within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates (or releases) nothing more, an estimate its first figures; a duplicate sent while the first still runs waits for its answer. A refused request (4xx) leaves the key free. Without the header every request runs. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateInvoiceRequest"] | components["schemas"]["PayoutRequest"];
            };
        };
        responses: {
            /** @description The new invoice (or, for an estimate body, the estimate) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"] | components["schemas"]["PayoutEstimate"];
                };
            };
            /** @description Invalid data (see below), a JSON parse error, or `User's target wallet address is not set` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope <scope>.` (a key without the scope this operation needs; the scope is `invoices:write` to create an invoice, `read` for a payout estimate) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key`: the first request with this key is still running (retry for its answer), or was interrupted before it answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key` already used with a different request (another body or path) in the last 24 hours */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A rate, the node or the USDT simulation is unavailable; `detail` says which. Try again later. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listInvoices: {
        parameters: {
            query?: {
                /** @description Page size. Above 300 it is clamped to 300 (not refused). */
                limit?: number;
                /** @description Number of items skipped. */
                offset?: number;
                type?: "SINGLE" | "MULTIPLE" | "MULTIPLE_TRANSFER";
                /** @description An invoice status; CANCELLED is read as CANCELED */
                status?: "ACTIVE" | "COMPLETED" | "CANCELED" | "TIMEOUT" | "ERROR" | "AML_FAILED" | "OVERPAID" | "UNDERPAID";
                /** @description TRX,USDT: invoices accepting both; TRX: accepting TRX (alone or with USDT) */
                currency?: "TRX" | "USDT" | "TRX,USDT";
                /** @description A UTC calendar day, inclusive: YYYY-MM-DD (YYYY_MM_DD is read too). */
                date_from?: string;
                /** @description A UTC calendar day, inclusive: YYYY-MM-DD (YYYY_MM_DD is read too). */
                date_to?: string;
                /** @description A `-` prefix sorts descending; ties are broken by id in the same direction. */
                ordering?: "created_at" | "-created_at" | "amount" | "-amount" | "status" | "-status";
                /** @description Substring of address or description, start of order_id (an addition to the spec), exact id, a status (either spelling) or a token, case-insensitive */
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of invoices */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoicePage"];
                };
            };
            /** @description An invalid filter, named in `detail` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoice, now CANCELED */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            /** @description `Invoice cannot be canceled` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope invoices:write.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No Invoice matches the given query.` (unknown, malformed or another merchant's id) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoice */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No Invoice matches the given query.` (unknown, malformed or another merchant's id) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPayout: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional (not in the spec). A unique key per request, e.g. a UUID: a repeat of the same request with the same key within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates (or releases) nothing more, an estimate its first figures; a duplicate sent while the first still runs waits for its answer. A refused request (4xx) leaves the key free. Without the header every request runs. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PayoutRequest"];
            };
        };
        responses: {
            /** @description A MULTIPLE_TRANSFER invoice; send `currencies_amounts` to `address` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Invoice"];
                };
            };
            /** @description Invalid data: `detail` names the first offending field (`<field>: <message>`), `errors` maps every one; or `JSON parse error - <parser message>` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope payouts:write.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key`: the first request with this key is still running (retry for its answer), or was interrupted before it answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key` already used with a different request (another body or path) in the last 24 hours */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A rate, the node or the USDT simulation is unavailable; `detail` says which. Try again later. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    estimatePayout: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional (not in the spec). A unique key per request, e.g. a UUID: a repeat of the same request with the same key within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates (or releases) nothing more, an estimate its first figures; a duplicate sent while the first still runs waits for its answer. A refused request (4xx) leaves the key free. Without the header every request runs. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PayoutRequest"];
            };
        };
        responses: {
            /** @description The estimate */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayoutEstimate"];
                };
            };
            /** @description Invalid data: `detail` names the first offending field (`<field>: <message>`), `errors` maps every one; or `JSON parse error - <parser message>` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key`: the first request with this key is still running (retry for its answer), or was interrupted before it answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key` already used with a different request (another body or path) in the last 24 hours */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A rate, the node or the USDT simulation is unavailable; `detail` says which. Try again later. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTransactions: {
        parameters: {
            query?: {
                /** @description Page size. Above 300 it is clamped to 300 (not refused). */
                limit?: number;
                /** @description Number of items skipped. */
                offset?: number;
                type?: "PAYMENT" | "TRANSFER" | "TOPUP" | "ACTIVATION";
                invoice_id?: string;
                from_address?: string;
                to_address?: string;
                trn_hash?: string;
                /** @description Whether an AML check exists */
                has_aml?: "0" | "1" | "true" | "false" | "True" | "False";
                currency?: "TRX" | "USDT";
                /** @description A UTC calendar day, inclusive: YYYY-MM-DD (YYYY_MM_DD is read too). */
                date_from?: string;
                /** @description A UTC calendar day, inclusive: YYYY-MM-DD (YYYY_MM_DD is read too). */
                date_to?: string;
                /** @description A `-` prefix sorts descending; ties are broken by id in the same direction. */
                ordering?: "created_at" | "-created_at" | "amount" | "-amount" | "status" | "-status";
                /** @description Substring of trn_hash, from_address or to_address, exact invoice_id, a type or a currency */
                search?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of transactions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransactionPage"];
                };
            };
            /** @description An invalid filter, named in `detail` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTransaction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Transaction hash */
                trn_hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The transaction, with the full aml_check when a check ran */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Transaction"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Address not found.` (an unknown hash, another merchant's, or one of the energy pool's own operations, which are no merchant transactions) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createRefund: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional (not in the spec). A unique key per request, e.g. a UUID: a repeat of the same request with the same key within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates (or releases) nothing more, an estimate its first figures; a duplicate sent while the first still runs waits for its answer. A refused request (4xx) leaves the key free. Without the header every request runs. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Invoice id */
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefundRequest"];
            };
        };
        responses: {
            /** @description The refund: WAITING_ADDRESS (a claim link) or WAITING_FUNDS */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description Invalid data (`currency`, `amount`, `address`, `reason` named: more than is left to refund, nothing received in the token, a smart contract or frozen USDT address), or a mass payout */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope refunds:write.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No Invoice matches the given query.` (unknown, malformed or another merchant's id) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key`: the first request with this key is still running (retry for its answer), or was interrupted before it answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key` already used with a different request (another body or path) in the last 24 hours */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A rate, the node or the USDT simulation is unavailable; `detail` says which. Try again later. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRefunds: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The refunds */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"][];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No Invoice matches the given query.` (unknown, malformed or another merchant's id) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRefund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Refund id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The refund */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No Refund matches the given query.` (unknown, malformed or another merchant's id) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelRefund: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Refund id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The refund, now CANCELED */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Refund"];
                };
            };
            /** @description `Refund cannot be canceled: it is <status>.` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope refunds:write.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No Refund matches the given query.` (unknown, malformed or another merchant's id) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listHeldPayments: {
        parameters: {
            query?: {
                /** @description Page size. Above 300 it is clamped to 300 (not refused). */
                limit?: number;
                /** @description Number of items skipped. */
                offset?: number;
                invoice_id?: string;
                currency?: "TRX" | "USDT";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of held payments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HeldPaymentPage"];
                };
            };
            /** @description An invalid filter, named in `detail` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getHeldPayment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The payment's transaction hash */
                trn_hash: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HeldPayment"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No held payment with this hash.` (an unknown hash, another merchant's, or a payment that was never held) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    releaseHeldPayment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Optional (not in the spec). A unique key per request, e.g. a UUID: a repeat of the same request with the same key within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates (or releases) nothing more, an estimate its first figures; a duplicate sent while the first still runs waits for its answer. A refused request (4xx) leaves the key free. Without the header every request runs. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The held payment's transaction hash */
                trn_hash: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReleaseRequest"];
            };
        };
        responses: {
            /** @description The payment, released: `release.state` IN_PROGRESS until the worker has moved it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HeldPayment"];
                };
            };
            /** @description Invalid data (`action`, `address` named), `Only held funds can be released.` (a payment not held now: never held, or released already), or a send of the payment still in flight */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope payouts:write.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `No held payment with this hash.` (no payment of this merchant has it) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key`: the first request with this key is still running (retry for its answer), or was interrupted before it answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Idempotency-Key` already used with a different request (another body or path) in the last 24 hours */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A rate, the node or the USDT simulation is unavailable; `detail` says which. Try again later. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMerchant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calling merchant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Merchant"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRate: {
        parameters: {
            query: {
                /** @description TRX or USDT (case-insensitive) */
                currency: "TRX" | "USDT";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description USD per token, and the USDT top-up fee */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rate"];
                };
            };
            /** @description `currency: This field is required.` */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted), or `This API key lacks the scope read.` (a key without the scope this operation needs) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Currency not found` */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `Exchange rate for <token> is unavailable (...); try again later` */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    invoiceWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` */
                "webhook-signature": string;
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` */
                "X-Webhook-Signature": string;
                /** @description The event, as `webhook-id` on a first delivery */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Invoice"];
            };
        };
        responses: {
            /** @description Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    paymentHeldWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` */
                "webhook-signature": string;
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` */
                "X-Webhook-Signature": string;
                /** @description The event, as `webhook-id` on a first delivery */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentHeldEvent"];
            };
        };
        responses: {
            /** @description Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    refundCreatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` */
                "webhook-signature": string;
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` */
                "X-Webhook-Signature": string;
                /** @description The event, as `webhook-id` on a first delivery */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefundEvent"];
            };
        };
        responses: {
            /** @description Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    refundClaimedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` */
                "webhook-signature": string;
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` */
                "X-Webhook-Signature": string;
                /** @description The event, as `webhook-id` on a first delivery */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefundEvent"];
            };
        };
        responses: {
            /** @description Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    refundSentWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` */
                "webhook-signature": string;
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` */
                "X-Webhook-Signature": string;
                /** @description The event, as `webhook-id` on a first delivery */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefundEvent"];
            };
        };
        responses: {
            /** @description Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    refundFailedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate */
                "webhook-id": string;
                /** @description Standard Webhooks: unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>` */
                "webhook-signature": string;
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` */
                "X-Webhook-Signature": string;
                /** @description The event, as `webhook-id` on a first delivery */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefundEvent"];
            };
        };
        responses: {
            /** @description Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
