import HTTP1
import JSON
import MIME
import MailStore
import MailboxAccounts
import MailboxRoutes
import ServerKit

/// Why a sandbox capture was refused for good (the SMTP side answers each with a permanent reply).
public enum SandboxCaptureError: Error, Sendable, Equatable {
    /// The sandbox holds its quota (`552 5.2.2`).
    case full
    /// The message passes one of the MIME parser's limits (`554 5.6.0`).
    case unreadable
}

/// Mail.td's SMTP sandbox (SDK 1.x `sandbox`): what the submission listener captures for a Pro user
/// (``SandboxDeliverySink``), and the seven endpoints that read it, on the Mail.td surface's bearer, rate limits and
/// error shape. Captured copies live in the mail store under the sandbox's own address, which is no account (so never
/// in `/api/user/accounts`) and takes no SMTP mail from outside.
public final class MailSandbox: Sendable {
    let surface: MailboxService
    let store: SandboxStore
    let mail: MailStore

    /// - Parameters:
    ///   - surface: the Mail.td surface: who the Pro user is, its API tokens, rate limits, answers and settings.
    ///   - store: the sandbox's rows.
    ///   - mail: the mail store the captured copies go to (the composition root's, whose arrivals observer queues
    ///     their webhook events).
    public init(surface: MailboxService, store: SandboxStore, mail: MailStore) {
        self.surface = surface
        self.store = store
        self.mail = mail
    }

    var configuration: MailboxConfiguration { surface.configuration }

    /// Adds the sandbox's seven routes (eight with Postern's own wait) to `router`.
    public func register(on router: inout ContextRouter) {
        let sandbox = "/api/user/sandbox"
        func add(
            _ method: HTTPMethod, _ path: String,
            _ handler: @escaping @Sendable (MailboxCall) async throws -> HTTPResponse
        ) {
            router.add(method, path, surface.deferred(.general, handler))
        }
        add(.GET, sandbox, sandboxInfo)
        add(.GET, sandbox + "/messages", sandboxMessages)
        add(.GET, sandbox + "/messages/wait", waitForSandboxMessage)
        add(.DELETE, sandbox + "/messages", purgeSandbox)
        add(.GET, sandbox + "/messages/{messageID}", sandboxMessage)
        add(.DELETE, sandbox + "/messages/{messageID}", deleteSandboxMessage)
        add(.GET, sandbox + "/messages/{messageID}/source", sandboxSource)
        add(.GET, sandbox + "/messages/{messageID}/attachments/{index}", sandboxAttachment)
    }

    /// Where Pro user `id`'s sandbox keeps its captures in the mail store; nil before its first SMTP connection (the
    /// web inbox lists it beside the user's accounts).
    public func sandboxAddress(proUserID id: String) async throws -> String? {
        try await store.sandbox(ownerID: id)?.address
    }

    /// The SPF, DKIM and DMARC verdicts recorded for capture `messageID` of Pro user `id`'s sandbox (the capture
    /// detail's `auth_results`); nil when it is no capture of theirs or none were recorded. The web inbox shows them.
    public func authResults(proUserID id: String, messageID: String) async throws -> JSONValue? {
        try await store.sandboxMessage(messageID, ownerID: id)?.authResults
    }

    /// Pro user `id`'s sandbox as the web inbox's dashboard shows it: its address, how many captures it holds and
    /// the bytes they take (what `GET /api/user/sandbox` reports as `used`); nil before its first SMTP connection.
    public func sandboxCaptures(proUserID id: String) async throws -> (address: String, count: Int, used: Int64)? {
        guard let sandbox = try await store.sandbox(ownerID: id) else { return nil }
        let count = try await mail.folderCounts(address: sandbox.address)[.inbox]?.total ?? 0
        return (sandbox.address, count, try await mail.used(address: sandbox.address))
    }

    // MARK: - Capture (the SMTP sandbox listener's sink calls these)

    /// The credential a sandbox SMTP password proves: the id of a live `tm_pro_` API token of an active user (the
    /// user name is not checked: the contract takes any). Makes the user's sandbox on first use. Nil for anything
    /// else. The session holds the id, never the token, and asks ``sandboxOwner(credential:)`` before each message.
    public func sandboxCredential(apiToken: String) async throws -> String? {
        guard let (tokenID, userID) = try await surface.accounts.verifyAPIToken(apiToken) else { return nil }
        _ = try await sandbox(for: userID, create: true)
        return tokenID
    }

    /// The Pro user behind a sandbox credential (an API token id) while the token is unrevoked and its user active;
    /// nil once the token was revoked or the user suspended.
    public func sandboxOwner(credential: String) async throws -> String? {
        try await surface.accounts.proUserID(ofLiveToken: credential)
    }

    /// Stores one submitted message in `owner`'s sandbox, whatever its recipients: nothing is relayed. The copy is
    /// held by `owner` under the sandbox's account id, so its webhook hears of it (mailtd-pro-contract.md section 2).
    /// - Parameter authResults: the SPF, DKIM and DMARC verdicts to show; nil when none were evaluated.
    /// - Returns: the captured message's id.
    /// - Throws: ``SandboxCaptureError`` for a full sandbox or an unreadable message; storage errors.
    public func captureInSandbox(
        owner: String, mailFrom: String, recipients: [String], clientIP: String, raw: [UInt8], authResults: JSONValue?
    ) async throws -> String {
        guard let sandbox = try await sandbox(for: owner, create: true) else { throw MailboxError.notFound }
        let parsed: ParsedMessage
        do {
            parsed = try MIMEParser.parse(raw, limits: MIMELimits(maximumMessageBytes: max(raw.count, 1)))
        } catch {
            throw SandboxCaptureError.unreadable
        }
        let now = surface.accounts.now()
        let id: String
        do {
            id = try await mail.deliver(
                NewMailMessage(parsed, envelopeFrom: mailFrom, raw: raw),
                to: [
                    MailStore.Recipient(
                        address: sandbox.address, quota: configuration.sandboxQuota,
                        envelopeTo: recipients,
                        holder: MailHolder(ownerID: owner, accountID: sandbox.accountID))
                ],
                folder: .inbox, now: now)[0]
        } catch MailStoreError.quotaExceeded {
            throw SandboxCaptureError.full
        }
        do {
            try await store.insertSandboxMessage(
                SandboxMessageRecord(
                    messageID: id, recipients: recipients, clientIP: clientIP, authResults: authResults),
                ownerID: owner, now: now)
        } catch {
            _ = try? await mail.delete(address: sandbox.address, id: id)  // all or nothing
            throw error
        }
        return id
    }

    // MARK: - Endpoints

    /// `GET /api/user/sandbox`: SandboxInfo. Before the first SMTP connection `enabled` is false and the account
    /// fields are null; with the listener off, `smtp_port` is 0 and the note says so.
    func sandboxInfo(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await surface.requireProUserID(call)
        let sandbox = try await sandbox(for: user, create: false)
        var used: JSONValue = .null
        if let sandbox { used = .int(try await mail.used(address: sandbox.address)) }
        let listening = configuration.sandboxSMTPPort != nil
        let note =
            listening
            ? "Use any API token as the SMTP password; STARTTLS first (AUTH PLAIN or LOGIN)"
            : "The SMTP sandbox listener is off on this server (POSTERN_SANDBOX_SMTP_PORT=off)"
        let pairs: [(String, JSONValue)] = [
            ("enabled", .bool(sandbox != nil && listening)),
            ("account_id", sandbox.map { JSONValue.string($0.accountID) } ?? .null),
            ("address", sandbox.map { JSONValue.string($0.address) } ?? .null),
            ("smtp_host", .string(configuration.sandboxSMTPHost)),
            ("smtp_port", .int(Int64(configuration.sandboxSMTPPort ?? 0))),
            ("auth_method", .string("PLAIN")), ("username", .string("any")), ("note", .string(note)),
            ("quota", sandbox == nil ? .null : .int(configuration.sandboxQuota)), ("used", used),
        ]
        return MailboxJSON.response(.ok, pairs)
    }

    /// `GET /api/user/sandbox/messages[?page=N]`: `{"messages":[...],"page":N}`, newest first, 30 a page.
    func sandboxMessages(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await surface.requireProUserID(call)
        let page = try call.integerQuery("page", in: 1...1_000_000, fallback: 1)
        let address = try await sandbox(for: user, create: false)?.address
        return try await MailboxMessageJSON.page(page, of: address, in: mail)
    }

    /// `GET /api/user/sandbox/messages/wait[?timeout=S]`, as the accounts' wait: the oldest unread captured message
    /// as soon as there is one, or 204 after `timeout` seconds (default 30, at most 30). Postern's own. Makes the
    /// sandbox when the user has none yet (as the first SMTP connection would), so that a wait started before the
    /// first message sees it arrive.
    func waitForSandboxMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await surface.requireProUserID(call)
        let seconds = try call.integerQuery("timeout", in: 0...30, fallback: 30)
        guard let sandbox = try await sandbox(for: user, create: true),
            let message = try await mail.nextUnread(address: sandbox.address, timeout: .seconds(seconds))
        else { return MailboxJSON.noContent() }
        return MailboxJSON.response(.ok, MailboxMessageJSON.summaryPairs(message))
    }

    /// `DELETE /api/user/sandbox/messages`: `{"deleted": n}`.
    func purgeSandbox(_ call: MailboxCall) async throws -> HTTPResponse {
        let user = try await surface.requireProUserID(call)
        guard let sandbox = try await sandbox(for: user, create: false) else {
            return MailboxJSON.response(.ok, [("deleted", .int(0))])
        }
        let deleted = try await mail.deleteAll(address: sandbox.address)
        return MailboxJSON.response(.ok, [("deleted", .int(Int64(deleted)))])
    }

    /// `GET /api/user/sandbox/messages/{messageID}`: the message's detail, `address` the first envelope recipient,
    /// plus `recipients`, `client_ip` and `auth_results`.
    func sandboxMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let (sandbox, user) = try await sandboxOfCaller(call)
        guard let message = try await mail.message(address: sandbox.address, id: call.messageID) else {
            throw MailboxError.notFound
        }
        let extra = try await store.sandboxMessage(call.messageID, ownerID: user)
        var pairs = MailboxMessageJSON.summaryPairs(message.summary)
        pairs.removeAll { $0.0 == "preview_text" }
        let recipients = extra?.recipients ?? []
        pairs += [
            ("address", .string(recipients.first ?? sandbox.address)),
            ("recipients", .array(recipients.map(JSONValue.string))),
            ("to", MailboxMessageJSON.addressList(message.to)), ("cc", MailboxMessageJSON.addressList(message.cc)),
            ("message_id", message.messageID.map(JSONValue.string) ?? .null),
            ("text_body", message.textBody.map(JSONValue.string) ?? .null),
            ("html_body", message.htmlBody.map(JSONValue.string) ?? .null),
            ("attachments", MailboxMessageJSON.attachmentList(message.attachments)),
            ("client_ip", extra.map { .string($0.clientIP) } ?? .null),
        ]
        if let results = extra?.authResults { pairs.append(("auth_results", results)) }
        return MailboxJSON.response(.ok, pairs)
    }

    /// `DELETE /api/user/sandbox/messages/{messageID}`: 204, or 404.
    func deleteSandboxMessage(_ call: MailboxCall) async throws -> HTTPResponse {
        let (sandbox, user) = try await sandboxOfCaller(call)
        guard try await mail.delete(address: sandbox.address, id: call.messageID) else { throw MailboxError.notFound }
        return MailboxJSON.noContent()
    }

    /// `GET .../{messageID}/source`: the raw message as `message/rfc822`, `message.eml`.
    func sandboxSource(_ call: MailboxCall) async throws -> HTTPResponse {
        let (sandbox, _) = try await sandboxOfCaller(call)
        guard let raw = try await mail.raw(address: sandbox.address, id: call.messageID) else {
            throw MailboxError.notFound
        }
        return MailboxMessageJSON.download(raw, contentType: "message/rfc822", filename: "message.eml")
    }

    /// `GET .../{messageID}/attachments/{index}`: one attachment's decoded bytes; 400 `invalid_index` for an index
    /// that is not a number or names no attachment of an existing message, 404 for an unknown message.
    func sandboxAttachment(_ call: MailboxCall) async throws -> HTTPResponse {
        let (sandbox, _) = try await sandboxOfCaller(call)
        guard let index = call.parameters["index"].flatMap({ Int($0) }), index >= 0 else {
            throw MailboxError.invalidIndex
        }
        guard
            let (info, data) = try await mail.attachment(address: sandbox.address, id: call.messageID, position: index)
        else {
            guard try await mail.exists(address: sandbox.address, id: call.messageID) else {
                throw MailboxError.notFound
            }
            throw MailboxError.invalidIndex
        }
        return MailboxMessageJSON.download(
            data, contentType: info.contentType, filename: info.filename ?? "attachment-\(index)")
    }

    // MARK: - Helpers

    /// The caller's sandbox and user id; 404 when the user has none yet (so no message can be found).
    private func sandboxOfCaller(_ call: MailboxCall) async throws -> (SandboxRecord, String) {
        let user = try await surface.requireProUserID(call)
        guard let sandbox = try await sandbox(for: user, create: false) else { throw MailboxError.notFound }
        return (sandbox, user)
    }

    /// The user's sandbox; made now when `create`.
    private func sandbox(for owner: String, create: Bool) async throws -> SandboxRecord? {
        if let existing = try await store.sandbox(ownerID: owner) { return existing }
        guard create else { return nil }
        let accountID = MailboxIdentifiers.uuid()
        let hex = accountID.filter { $0 != "-" }.prefix(8)
        let domain = surface.accounts.primaryDomain
        return try await store.ensureSandbox(
            SandboxRecord(
                ownerID: owner, accountID: accountID, address: "sandbox-\(hex)@sandbox.\(domain)",
                createdAt: surface.accounts.now()))
    }
}
