/// Every metric family `/metrics` can show, with its `# HELP` text: the one list, which docs/metrics.md follows (a test
/// checks both ways). Families made through swift-metrics (the surfaces' counters) get their help from here through
/// ``PosternMetricsFactory``; a family missing here is emitted without `# HELP`, which the metrics tests refuse.
enum MetricFamilies {
    /// Help text by family name.
    static let help: [String: String] = [
        // The process and its storage.
        "postern_build_info": "Always 1; the version label is this build's.",
        "postern_open_connections": "Client connections currently open.",
        "postern_mail_waiting_requests": "Requests parked until their address's mail changes (/messages/wait).",
        "postern_storage_bytes":
            "Size of the database: the SQLite file's pages (page_count * page_size) or pg_database_size.",
        "postern_storage_commits_in_doubt_total":
            "PostgreSQL writes answered 503 because their commit is in doubt, by reason (replication_canceled: the "
            + "wait for the synchronous standby was canceled; timeout: not confirmed within the commit timeout; "
            + "no_synchronous_standby: committed without waiting for a synchronous standby that is required).",
        "postern_http_requests_total": "HTTP requests answered, by route template, method and status.",
        "postern_http_request_duration_seconds":
            "Time from a complete request to its response, by route template, method and status.",
        // Queues.
        "postern_webhook_queue_depth": "Webhook events waiting for delivery or a retry.",
        "postern_webhook_attempts_total":
            "Webhook delivery attempts, by result (delivered, http_error, network_error).",
        "postern_outbox_messages":
            "Messages held in the outbox (mail_outbox, postern mail outbox): outside mail that is never sent.",
        "postern_outbound_queue_messages":
            "Messages waiting in the outbound queue, by state (queued: not attempted yet; deferred: retried later).",
        "postern_outbound_oldest_queued_seconds":
            "Seconds since the oldest message waiting in the outbound queue was submitted; 0 when none waits.",
        "postern_outbound_delivery_attempts_total":
            "Outbound delivery attempts (one message to one domain), by result "
            + "(delivered, deferred, failed, partial, unrecorded).",
        // Mail.
        "postern_smtp_messages_total": "SMTP messages read to their end, by result (stored or why refused).",
        "postern_smtp_chaos_injections_total": "SMTP faults injected by failure-injection rules, by stage and action.",
        "postern_mail_pruned_total": "Messages retention deleted, by why (count or age).",
        "postern_smtp_refusals_total": "SMTP recipients and sessions refused, by reason.",
        "postern_smtp_replies_total":
            "SMTP replies to RCPT TO, to the end of a message and to a connection over the cap, by class and command.",
        "postern_jmap_recipients_total": "JMAP submission recipients, by result (delivered, outbox, refused).",
        "postern_submission_recipients_total":
            "Submission listener recipients, by result (delivered, outbox, refused).",
        "postern_outbound_recipients_total":
            "Outside recipients of submissions, by result (queued or held; then delivered, deferred or failed).",
        "postern_jmap_event_streams": "JMAP event-source streams open now.",
        "postern_web_inbox_event_streams": "Web inbox live-list streams open now.",
        "postern_jmap_events_pushed_total": "JMAP event-source events pushed, by event (state, ping).",
        // Proofs of work and rate limits.
        "postern_pow_verifications_total": "Proof-of-work verifications, by surface and result.",
        "postern_rate_limit_rejections_total": "Requests refused by a rate limit, by surface and class.",
        // Agent signup.
        "postern_agent_challenges_total": "Agent proof-of-work challenges issued.",
        "postern_agent_pow_base_difficulty": "The configured agent proof-of-work difficulty (leading zero bits).",
        "postern_agent_pow_difficulty": "The agent proof-of-work difficulty in force now (leading zero bits).",
        "postern_agent_difficulty_raised_total": "Times the dynamic agent difficulty was raised.",
        "postern_agent_signups_total": "Agent accounts created.",
        "postern_agent_logins_total": "Agent sessions opened for existing accounts.",
        "postern_agent_capabilities_total": "Agent capability tokens issued.",
        // Mailbox accounts, owners, remote hashes.
        "postern_mailbox_accounts_created_total": "Mailbox accounts created, by plan (free, pro).",
        "postern_owner_signins_total": "Owner sign-ins, by result.",
        "postern_passkey_ceremonies_total": "Passkey ceremonies finished, by ceremony (registration, sign_in) and result.",
        "postern_remote_hash_fetches_total": "Remote password-hash fetches, by result.",
        "postern_remote_hash_verifications_total": "Remote password verifications, by result.",
        // OAuth.
        "postern_oauth_token_verifications_total": "OAuth access-token verifications, by result.",
        "postern_oauth_grants_total": "OAuth grants made (authorization codes issued).",
        "postern_oauth_refreshes_total": "OAuth refresh-token exchanges.",
        "postern_oauth_codes_redeemed_total": "OAuth authorization codes redeemed.",
        "postern_oauth_reuse_detections_total": "Reused OAuth codes and refresh tokens detected, by kind.",
        "postern_oauth_refresh_races_total":
            "Concurrent refreshes of one refresh token answered within the race window.",
        "postern_oauth_registrations_total": "OAuth clients registered dynamically.",
        "postern_oauth_revocations_total": "OAuth tokens revoked.",
        "postern_oauth_client_credentials_total": "OAuth tokens issued with the client credentials grant.",
        "postern_oidc_events_total": "OpenID Provider events: sign-in asked, prompt errors, refusals, codes, ID tokens, code reuse, logouts, back-channel deliveries, mail grants.",
        "postern_oauth_device_authorizations_total": "OAuth device authorizations started (RFC 8628), by outcome.",
        "postern_oauth_device_guesses_refused_total": "User codes refused unread: a budget of wrong entries was spent.",
        "postern_oauth_delegated_tokens_total":
            "OAuth tokens minted for an actor, by grant (token_exchange: RFC 8693; jwt_bearer: an identity assertion).",
        "postern_oauth_introspections_total": "OAuth introspection requests answered, active or not.",
    ]
}
