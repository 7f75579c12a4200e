/// The mailbox accounts section of `/llms.txt`: Mail.td's accounts and messages API as this instance runs it,
/// with curl lines that work against it. The app composes it with the other surfaces' sections.
public enum MailboxLLMsText {
    /// The section anchors (GitHub-style slugs of its headings).
    public static let anchors = [
        "mailbox-accounts-mailtd-compatible", "mailbox-flow", "smtp-sandbox", "mailbox-proof-of-work", "mailbox-webhooks",
        "mailbox-errors",
    ]

    /// Renders the section for `configuration`, whose base URL is `baseURL` (no trailing slash).
    public static func render(_ configuration: MailboxConfiguration, baseURL base: String) -> String {
        let c = configuration
        let domain = c.domains.first ?? "mail.localhost"
        let pow =
            c.powRequired
            ? "A free account needs a solved proof of work (below); a Pro bearer needs none."
            : "Proof of work is optional on this instance (`POSTERN_MAILBOX_POW_REQUIRED=off`); a `pow` that is sent is still checked."
        return """
            ## Mailbox accounts (Mail.td compatible)

            This server speaks Mail.td's accounts and messages API (its SDKs work by changing the base URL to \(base)). \
            Domains: \((c.domains + c.proDomains).map { "`\($0)`" }.joined(separator: ", "))\
            \(c.proDomains.isEmpty ? "" : " (Pro only: \(c.proDomains.map { "`\($0)`" }.joined(separator: ", ")))"). \
            Errors are `{"error":"<code>"}`. \(pow)

            ### Mailbox flow

            1. `GET \(base)/api/challenge` → `{"id","salt","difficulty","expires_at"}`.
            2. Solve it (see [Mailbox proof of work](#mailbox-proof-of-work)).
            3. `POST \(base)/api/accounts` with `address`, `password` and `pow` → 201 `{"id","address","token"}`.
            4. `POST \(base)/api/token` with `address` and `password` → 200 `{"id","address","token"}` (a new token).
            5. `GET \(base)/api/accounts/{id}` and `GET \(base)/api/accounts/{id}/messages` with `Authorization: Bearer <token>`.

            ```bash
            curl -s \(base)/api/challenge
            curl -s -X POST \(base)/api/accounts -H "Content-Type: application/json" -d '{"address":"demo@\(domain)","password":"<password>","pow":{"id":"<challenge id>","nonce":"<nonce>"}}'
            curl -s -X POST \(base)/api/token -H "Content-Type: application/json" -d '{"address":"demo@\(domain)","password":"<password>"}'
            curl -s "\(base)/api/accounts/<account id>" -H "Authorization: Bearer <token>"
            curl -s "\(base)/api/accounts/<account id>/messages" -H "Authorization: Bearer <token>"
            ```

            Mail.td's v2 clients send `auth_key` (64 hex characters: Argon2id of the password, salt SHA-256 of the \
            lower-cased address, t=3, m=16384 KiB, p=1, 32 bytes) instead of `password`; either works for any account. \
            Passwords are at least 6 characters. A token lasts \(c.tokenTTL / 86400) days; a password reset \
            (`PUT /api/accounts/{id}/reset-password`) ends every earlier one. `{id}` may be the account's address.

            ### SMTP sandbox

            \(sandbox(c, base: base))

            ### Mailbox proof of work

            Find a `nonce` (1 to 64 printable ASCII characters, for example a decimal counter) such that \
            SHA-256(UTF-8(salt) followed by UTF-8(nonce)) has at least `difficulty` leading zero bits (most significant \
            bit first). Difficulty on this instance: \(c.powDifficulty) bits. Each challenge is single use and expires \
            \(c.challengeTTL) s after it was issued.

            ```python
            import hashlib
            def solve(salt, difficulty):
                nonce = 0
                while int.from_bytes(hashlib.sha256((salt + str(nonce)).encode()).digest(), "big") >> (256 - difficulty):
                    nonce += 1
                return str(nonce)
            ```

            ### Mailbox webhooks

            A Pro user (bearer: Pro JWT or API token) has one webhook: `POST \(base)/api/user/webhooks` with \
            `{"url":"https://...","events":["email.received"]}` → 201 with `secret` (`whsec_...`, shown only here and by \
            rotate); `GET \(base)/api/user/webhooks`; `DELETE \(base)/api/user/webhooks/{id}` → 204; \
            `POST \(base)/api/user/webhooks/{id}/rotate` → the webhook with a new `secret`, `status` `active`, \
            `failure_count` 0; `GET \(base)/api/user/webhooks/{id}/deliveries` → the last 20 attempts. Each message stored \
            in an inbox the user owns is POSTed as `{"id":"evt_...","type":"email.received","created_at",\
            "data":{"email_id","account_id","address","from","sender","subject","preview_text","size","created_at"}}` \
            with `X-Webhook-ID` (the event id: deduplicate on it, delivery is at least once), `X-Webhook-Timestamp` (Unix \
            seconds) and `X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>`. \
            A 2xx acknowledges; anything else is retried after \(c.webhookRetrySeconds.map { "\($0)" }.joined(separator: ", ")) \
            seconds, then the webhook is `failed` until rotated. \
            \(c.outboundPolicy.allowPlainHTTP ? "This instance also accepts `http` and private addresses (`POSTERN_OUTBOUND_ALLOW_PRIVATE`)." : "URLs must be `https` to public addresses.") \
            Errors: 400 `invalid_url`, `invalid_events`; 403 `webhook_limit_reached`; 404 `not_found`.

            ### Mailbox errors

            400 `invalid_request`, `invalid_address`, `invalid_domain`, `password_too_short`, `invalid_auth_key`, \
            `proof of work required`; 401 `invalid_credentials`, `invalid_or_expired_token`; 403 `challenge not found \
            or expired`, `invalid proof of work`, `forbidden`, `account_limit_reached`; 404 `not_found`; 409 \
            `address_taken`; 429 `rate_limit_exceeded` (with `Retry-After`); 503 `service_unavailable` (with \
            `Retry-After`: busy or its database is unreachable; try again).\
            \(c.rateLimitsEnabled ? " Rate limits: 8 requests/s per address, one free account per 8 s." : " Rate limits are off on this instance.")

            """
    }

    /// The SMTP sandbox paragraph: where to submit on this instance, or that the listener is off.
    private static func sandbox(_ c: MailboxConfiguration, base: String) -> String {
        guard let port = c.sandboxSMTPPort else {
            return "The SMTP sandbox listener is off on this instance (`POSTERN_SANDBOX_SMTP_PORT=off`); the "
                + "`/api/user/sandbox` endpoints answer with what was captured before."
        }
        return """
            A Pro user's test mail goes to `\(c.sandboxSMTPHost):\(port)` (SMTP submission): `STARTTLS`, then `AUTH PLAIN` \
            or `LOGIN` with any user name and a Pro API token (`tm_pro_...`) as the password. Every recipient is accepted \
            and nothing is ever relayed: each message is captured (quota \(c.sandboxQuota / 1_048_576) MiB, `552 5.2.2` past \
            it) and read with the Pro bearer at `GET \(base)/api/user/sandbox`, `GET|DELETE \(base)/api/user/sandbox/messages`, \
            `GET|DELETE .../messages/{id}`, `GET .../messages/{id}/source` and `GET .../messages/{id}/attachments/{index}`. \
            A message's detail has `auth_results`: `spf`, `dkim` and `dmarc` (`pass`, `fail`, `softfail`, `neutral`, \
            `none`, `temperror`, `permerror`) as a receiver would find them, to check a sender's DNS before production.

            ```python
            import smtplib, ssl
            with smtplib.SMTP("\(c.sandboxSMTPHost)", \(port)) as s:
                s.starttls(context=ssl._create_unverified_context())  # self-signed unless the operator set a certificate
                s.login("any", "<tm_pro_ token>")
                s.sendmail("you@example.com", ["anyone@example.org"], b"Subject: test\\r\\n\\r\\nhello\\r\\n")
            ```
            """
    }
}
