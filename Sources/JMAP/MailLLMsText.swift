/// The mail section of `/llms.txt`: which addresses receive, SMTP, reading as a mailbox account, and JMAP for
/// agents, with curl lines that work against this instance.
public enum MailLLMsText {
    /// The section anchors (GitHub-style slugs of its headings).
    public static let anchors = ["mail-receive-read-and-send", "mail-over-jmap-agents", "mail-for-test-suites"]

    /// - Parameters:
    ///   - baseURL: the public base URL, no trailing slash.
    ///   - smtpAddress: `host:port` of the SMTP listener, nil when it is off.
    ///   - agentDomain: the agent inbox domain.
    ///   - mailboxDomains: the mailbox accounts' domains.
    public static func render(baseURL base: String, smtpAddress: String?, agentDomain: String, mailboxDomains: [String])
        -> String
    {
        let smtp = smtpAddress.map { address in
            let port = address.split(separator: ":").last.map(String.init) ?? "25"
            let host = String(address.dropLast(port.count + 1))
            return """
                SMTP listens on `\(address)` (no authentication, no relay: 550 for any other domain or an unknown \
                address; the 250 after DATA comes once the message is stored). For example \
                `swaks --server \(host) --port \(port) --to demo@\(mailboxDomains.first ?? "mail.localhost")`.
                """
        } ?? "SMTP is off on this instance (`POSTERN_SMTP=off`); `postern mail deliver` still stores mail."
        return """
            ## Mail: receive, read and send

            Local addresses are agent inboxes (`<username>@\(agentDomain)`) and mailbox accounts (\
            \(mailboxDomains.map { "`x@\($0)`" }.joined(separator: ", "))). \(smtp) Mailbox accounts read their mail \
            with Mail.td's message endpoints (`GET \(base)/api/accounts/{id}/messages`, `/messages/{messageID}`, \
            `/source`, `/attachments/{index}`, `PUT …/read`, `DELETE`), or with any IMAP client where the operator serves \
            IMAP (`POSTERN_IMAP`, port 1143 in `make run`): `LOGIN` with the account's address and password, from \
            loopback only until TLS is served; every folder (INBOX, Drafts, Sent, Trash, Junk, Archive and those a client \
            makes) holds the same messages JMAP sees, `\\Seen` the read state, \
            `\\Deleted` and `EXPUNGE` a delete for every door. Agents read and send over JMAP.

            ### Mail over JMAP (agents)

            The capability JWT (`POST \(base)/api/v1/capability`) opens JMAP (RFC 8620, 8621, 9404). `GET \
            \(base)/.well-known/jmap` gives the session: `apiUrl`, `uploadUrl`, `downloadUrl` and your account id in \
            `primaryAccounts["urn:ietf:params:jmap:mail"]`; your address is the token's `inboxId`. Mailboxes: `inbox`, \
            `drafts`, `sent`. Methods: `Mailbox/get`, `Mailbox/query`, `Email/query`, `Email/get`, `Email/set`, \
            `EmailSubmission/set`, `EmailSubmission/get`, `EmailSubmission/changes`, `EmailSubmission/query`, \
            `Thread/get`, `Identity/get`, `Blob/upload`, `Blob/get`, `Core/echo`, with result \
            references (`#ids`) and creation ids (`#d1`). To sync, keep the `state` a `/get` gave you and ask \
            `Email/changes`, `Mailbox/changes` or `Thread/changes` with `sinceState` (and `Email/queryChanges` with \
            `sinceQueryState`); a state too old for the change log answers `cannotCalculateChanges`: fetch again. \
            To be told of changes instead of asking, open the session's `eventSourceUrl` (RFC 8620 section 7.3) with \
            the same bearer: `GET \(base)/jmap/eventsource?types=*&closeafter=no&ping=60` is a `text/event-stream` \
            of `state` events (data `{"@type":"StateChange","changed":{"<account id>":{"Email":"<state>",...}}}`, \
            id = the state; `EmailDelivery` when new mail arrived; `EmailSubmission` with its own state when a send \
            is recorded or its `deliveryStatus` moves, the id then being `<state>.<EmailSubmission state>`) and \
            `ping` events; send the last id as `Last-Event-ID` \
            to hear only of what changed after it, and `closeafter=state` to end after the first event (long \
            polling). The stream ends when your capability JWT expires: reconnect with a fresh one and the last id. \
            Mail to local addresses is delivered at once and a copy \
            stays in your `sent`. Mail to another domain is queued to leave (`deliveryStatus` `queued`, then `yes` \
            or `no` with the remote reply; `EmailSubmission/get` and `EmailSubmission/changes` follow it), within \
            per-sender limits (`forbiddenToSend` past one, saying when it frees), unless it is **held**: kept in this \
            server's outbox and not sent, its `deliveryStatus` `delivered` `no` with Postern's `heldReason`: \
            `outbound_off` (outbound delivery is off on this server: the operator turns it on), `needs_owner` (this \
            inbox needs an owner before it can write outside: a person links it at `/owner`) or `awaiting_approval` \
            (its owner waits for the operator's approval). Held mail is released, through the same checks as a new \
            send, once the reason goes away (`postern mail outbox --release`, or its owner's button); nothing is lost.

            ```bash
            curl -s \(base)/.well-known/jmap -H "Authorization: Bearer <capability JWT>"
            curl -s -X POST \(base)/jmap/api -H "Authorization: Bearer <capability JWT>" -H "Content-Type: application/json" -d '{"using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail","urn:ietf:params:jmap:submission"],"methodCalls":[["Email/set",{"accountId":"<account id>","create":{"d1":{"mailboxIds":{"sent":true},"from":[{"email":"<your address>"}],"to":[{"email":"<recipient>"}],"subject":"Hello","textBody":[{"partId":"b","type":"text/plain"}],"bodyValues":{"b":{"value":"Hi there"}}}}},"c0"],["EmailSubmission/set",{"accountId":"<account id>","create":{"s1":{"emailId":"#d1"}}},"c1"]]}'
            curl -s -X POST \(base)/jmap/api -H "Authorization: Bearer <capability JWT>" -H "Content-Type: application/json" -d '{"using":["urn:ietf:params:jmap:core","urn:ietf:params:jmap:mail"],"methodCalls":[["Email/query",{"accountId":"<account id>","filter":{"inMailbox":"inbox"},"sort":[{"property":"receivedAt","isAscending":false}],"limit":20},"q"],["Email/get",{"accountId":"<account id>","#ids":{"resultOf":"q","name":"Email/query","path":"/ids"},"properties":["id","from","subject","receivedAt","preview","bodyValues"],"fetchTextBodyValues":true},"g"]]}'
            ```

            ### Mail for test suites

            `GET \(base)/api/accounts/{id}/messages/wait?timeout=30` (mailbox token) answers with the oldest unread \
            message as soon as there is one, or 204 after the timeout (0 to 30 s). The operator command \
            `postern mail deliver --to ADDRESS FILE` stores a message file as SMTP would.
            """
    }
}
