import HTTP1
import JSON
import MailStore
import MailboxAccounts
import MailboxRoutes
import ServerKit
import WebSocket

/// mail.cx's live messages (https://docs.mail.cx/api/websocket) at `GET /api/ws`: a mailbox's new mail pushed over a
/// WebSocket, one `new_email` object per message as it arrives.
///
/// The protocol, as mail.cx documents it and as this server decides where the docs are silent:
/// 1. Within 10 s of the upgrade the client sends `{"type":"auth","token":"<mailbox JWT>"}` (a Mail.td account's
///    token), or `{"type":"auth","address":"<address>"}` for one of the open mailboxes
///    (``MailboxConfiguration/openMailboxes``: mail.cx's implicit mailboxes, readable by whoever knows the address).
///    Nothing, or anything else first, within 10 s: the socket is closed with 1008 (reason `auth_timeout`).
/// 2. `{"type":"auth_ok"}` answers a live mailbox token. Otherwise one error object, then close 1008:
///    `{"error":"invalid_auth_message"}` (not JSON, or not an `auth` object with a string `token`),
///    `{"error":"invalid_token"}` (a bad, expired or superseded token, and any Pro JWT or Pro API token, which
///    "cannot be used"), `{"error":"too_many_connections"}` (3 sockets, `POSTERN_MAILBOX_SOCKETS_PER_ACCOUNT`, are
///    open for the account, or for the open mailbox from this client, counted across every instance in
///    `mailbox_sockets`: whoever knows an open address may follow it, so one client's sockets never fill another's
///    places, issue 81); for an
///    address, `{"error":"invalid_address"}` (not an address with Mail.td's local-part rules) or
///    `{"error":"domain_not_allowed"}` (not an open mailbox), mail.cx's REST codes.
/// 3. Then, for each message delivered to the account's inbox, in arrival order:
///    `{"type":"new_email","id","sender","from","subject","preview_text","size","created_at","account_id","address"}`,
///    `id` the id the Mail.td messages API serves and `preview_text` the first 100 characters of the list's preview
///    (``MailCXSocketSession/preview(_:)``); `account_id` is null for an open mailbox. Only mail arriving after
///    `auth_ok` is sent: nothing is replayed after a reconnect (list `GET /api/accounts/{id}/messages`, or mail.cx's
///    `GET /inbox/{address}`, for that).
/// 4. An account's token is checked again before each batch of events (what one change of the account's mail
///    brought) and at least every 30 s: revoked or expired (a password reset, the account deleted), the socket is
///    closed with 1008 (reason `token_revoked`).
/// 5. A database away for a failover closes nothing: the token's re-check throws it for the change stream to wait out,
///    and the socket's own reads and writes after an element are tried again each second until it is back.
/// 6. What the client sends after `auth_ok` is ignored. Keep-alive is WebSocket's own: the server pings every 30 s
///    and closes a client silent for 60 s; a reader that falls behind is closed with 1008; shutdown closes with 1001.
///
/// Served whatever mail.cx's REST path is (`/api/ws` was Mail.td's surface's before; issue 82 moved it to mail.cx's
/// door), over Mail.td's accounts and the one mail store.
public struct MailCXSocketController: Sendable {
    let accounts: MailboxAccountService
    let mail: MailStore
    let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - accounts: Mail.td's accounts: their tokens, the open mailboxes, the sockets' places.
    ///   - mail: the one mail store.
    ///   - clock: Unix seconds.
    public init(accounts: MailboxAccountService, mail: MailStore, clock: @escaping @Sendable () -> Int64) {
        self.accounts = accounts
        self.mail = mail
        self.clock = clock
    }

    /// The path of the endpoint.
    static let path = "/api/ws"
    /// How long a client has to authenticate.
    static let authWindow: Duration = .seconds(10)
    /// How long a socket's row in `mailbox_sockets` counts without being pushed on; it is pushed on every third of it.
    static let claimSeconds: Int64 = 90

    /// Adds `GET /api/ws`.
    public func register(on router: inout ContextRouter) {
        let controller = self
        router.add(
            .GET, Self.path,
            .webSocket { _, context, _, _ in
                let client = context.clientKey.description
                return .accept(subprotocol: nil) { inbound, outbound in
                    await MailCXSocketSession(controller, outbound: outbound, client: client).run(inbound)
                }
            })
    }
}

/// One `/api/ws` socket: its authentication, then its events until it closes. It lives as long as ``run(_:)``.
final class MailCXSocketSession: Sendable {
    let accounts: MailboxAccountService
    let mail: MailStore
    let clock: @Sendable () -> Int64
    let outbound: WebSocketOutbound
    /// The client's key (`ClientAddressKey`: an IPv4 address, an IPv6 /64), under which an open mailbox's sockets are
    /// counted.
    let client: String
    private let socketID = MailboxIdentifiers.uuid()

    init(_ controller: MailCXSocketController, outbound: WebSocketOutbound, client: String) {
        (accounts, mail, clock) = (controller.accounts, controller.mail, controller.clock)
        self.outbound = outbound
        self.client = client
    }

    /// Waits up to the auth window for the client's first message, then authenticates and pushes while reading and
    /// dropping what else the client sends.
    func run(_ inbound: WebSocketInbound) async {
        let first = await withTaskGroup(of: WebSocketMessage?.self) { group in
            group.addTask {
                for await message in inbound { return message }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: MailCXSocketController.authWindow)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        guard let first else {
            if !Task.isCancelled { outbound.close(.policyViolation, reason: "auth_timeout") }
            return
        }
        try? await inbound.discarding { await authenticate(first) }
    }

    private func refuse(_ error: String) {
        outbound.send(.text(#"{"error":"\#(error)"}"#))
        outbound.close(.policyViolation, reason: error)
    }

    private func authenticate(_ message: WebSocketMessage) async {
        guard case .text(let text) = message,
            let value = try? JSONValue.parse(Array(text.utf8), limits: JSONValue.Limits(maximumBytes: 16 * 1024)),
            value["type"]?.stringValue == "auth"
        else { return refuse("invalid_auth_message") }
        let watched: Watched
        if let token = value["token"]?.stringValue {
            guard let hold = try? await accounts.holdMailboxToken(token) else { return refuse("invalid_token") }
            watched = Watched(address: hold.account.address, accountID: hold.account.id, token: hold, client: client)
        } else if let text = value["address"]?.stringValue {
            guard let address = MailboxAddress(text) else { return refuse("invalid_address") }
            guard let open = accounts.configuration.openMailboxes,
                case .local(let mailbox)? = try? await open.resolve(address.description)
            else { return refuse("domain_not_allowed") }
            watched = Watched(address: mailbox.address, accountID: nil, token: nil, client: client)
        } else {
            return refuse("invalid_auth_message")
        }
        let claimed: Bool
        do {
            let now = clock()
            claimed = try await accounts.claimSocket(
                id: socketID, key: watched.socketKey, now: now,
                expiresAt: now + MailCXSocketController.claimSeconds, limit: accounts.configuration.socketsPerAccount)
        } catch {
            outbound.close(.internalError, reason: "")
            return
        }
        guard claimed else { return refuse("too_many_connections") }
        do {
            try await push(watched)
        } catch {
            if !Task.isCancelled { outbound.close(.internalError, reason: "") }
        }
        try? await accounts.releaseSocket(id: socketID)
    }

    /// The mailbox a socket follows: a Mail.td account by its token, or an open mailbox (mail.cx's implicit one) by
    /// its address alone.
    struct Watched: Sendable {
        let address: String
        /// The account's id; nil for an open mailbox, which has none.
        let accountID: String?
        /// The account's token, checked again as the socket lives; nil for an open mailbox, which nothing revokes.
        let token: MailboxAccountService.MailboxTokenHold?
        /// The client's key.
        let client: String

        /// What the socket counts against in `mailbox_sockets`: the account's id (its token is its holder's, from
        /// anywhere), or the open mailbox's address and the client's key (an address has no space, and no UUID is
        /// either): anyone may follow an open address, so each client has its own places there.
        var socketKey: String { accountID ?? address + " " + client }
    }

    /// Sends `auth_ok`, then an event per message arriving in the mailbox's inbox, until the socket closes or an
    /// account's token no longer holds (the change stream checks it before each element, then the socket is closed).
    private func push(_ watched: Watched) async throws {
        let known = try await mail.state(address: watched.address)
        outbound.send(.text(#"{"type":"auth_ok"}"#))
        let monotonic = ContinuousClock()
        let refreshEvery = Duration.seconds(MailCXSocketController.claimSeconds / 3)
        var refreshed = monotonic.now
        let stream = mail.changeStream(of: watched.address, from: known, quiet: refreshEvery) { [self] in
            guard let token = watched.token else { return true }
            // A database away (a failover) is thrown, for the stream to wait out; only a token that no longer holds
            // closes the socket.
            if try await accounts.stillHolds(token) { return true }
            outbound.close(.policyViolation, reason: "token_revoked")
            return false
        }
        for try await event in stream {
            if case .changed(let change) = event {
                for arrival in change.arrivals {
                    // Read again after a failover rather than closing the client's socket.
                    guard
                        let message = try await mail.outlastingOutages({
                            try await mail.message(address: watched.address, id: arrival.messageID)
                        })
                    else { continue }
                    outbound.send(
                        .text(Self.event(message.summary, accountID: watched.accountID, address: watched.address)))
                }
            }
            if monotonic.now - refreshed >= refreshEvery {
                let now = clock()
                try await mail.outlastingOutages {
                    try await accounts.refreshSocket(
                        id: socketID, expiresAt: now + MailCXSocketController.claimSeconds)
                }
                refreshed = monotonic.now
            }
        }
    }

    /// How long a `new_email`'s `preview_text` may be, in Unicode scalars (mail.cx: "the first ~100 characters").
    static let previewLength = 100

    /// The `new_email` object of `summary` in the inbox of `address`: the Mail.td list object without `is_read`, its
    /// `preview_text` cut to ``preview(_:)``, then the account's id (null for an open mailbox, which has none) and the
    /// address.
    static func event(_ summary: MailSummary, accountID: String?, address: String) -> String {
        var pairs: [(String, JSONValue)] = [("type", .string("new_email"))]
        for (key, value) in MailboxMessageJSON.summaryPairs(summary) where key != "is_read" {
            pairs.append(key == "preview_text" ? (key, .string(preview(summary.preview))) : (key, value))
        }
        pairs += [("account_id", accountID.map(JSONValue.string) ?? .null), ("address", .string(address))]
        return String(decoding: JSONValue.object(pairs).serialize(), as: UTF8.self)
    }

    /// The first whole characters (grapheme clusters) of a stored preview that fit in ``previewLength`` Unicode
    /// scalars, without the space the cut may leave at the end. The stored preview (up to 256 characters, whitespace
    /// already collapsed) is what the messages API lists; only the event is shorter. Counting scalars keeps it within
    /// 100 for a client that counts code points (Python's `len`), and whole clusters never split a character.
    static func preview(_ stored: String) -> String {
        var scalars = 0
        var cut = stored.startIndex
        for index in stored.indices {
            scalars += stored[index].unicodeScalars.count
            if scalars > previewLength { break }
            cut = stored.index(after: index)
        }
        guard cut < stored.endIndex else { return stored }
        var preview = stored[..<cut]
        while preview.last?.isWhitespace == true { preview = preview.dropLast() }
        return String(preview)
    }
}
