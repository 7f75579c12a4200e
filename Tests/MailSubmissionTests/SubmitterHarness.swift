import Directory
import MIME
import MailDelivery
import MailStore
import MailSubmission
import OutboundQueue
import PosternTestSupport
import SMTPOutcomes
import Storage

/// Accounts held in memory on fixed domains, as any directory would answer for them.
struct FixedDirectory: AccountDirectory {
    let domains: Set<String>
    let quotas: [String: Int64]

    func serves(domain: String) -> Bool { domains.contains(domain.lowercased()) }

    func resolve(_ address: String) async throws -> AddressResolution {
        guard let parts = AddressParts(address), serves(domain: parts.domain) else { return .foreign }
        return quotas[parts.text].map { .local(Recipient(address: parts.text, quota: $0)) } ?? .unknown
    }
}

/// A ``Submitter`` over a fresh database of one backend: the outbound queue as the ledger, the store, local delivery
/// and a directory of ada (the sender) and bob on `agents.test`. The store and the queue reach the database through a
/// ``CountingDatabase`` that counts what a submission asks of it, and fails its statements while ``outage`` says so.
struct SubmitterHarness {
    static let now: Int64 = 1_795_600_000
    static let ada = "ada@agents.test"
    static let bob = "bob@agents.test"
    static let directory = FixedDirectory(domains: ["agents.test"], quotas: [ada: 1_000_000, bob: 1_000_000])

    let test: TestDatabase
    let counting: CountingDatabase
    let outage = InjectedOutage()
    let store: MailStore
    let queue: OutboundQueue
    let submitter: Submitter

    /// - Parameters: the admission's settings; `ledger` wraps the queue (a ledger whose admission check sees free
    ///   places the record then finds taken).
    init(
        _ backend: StorageBackend, sendsOutside: Bool = true, limits: [SendLimit] = [],
        maxMessageBytes: Int = 25 * 1024 * 1024, sender: OutsideSender = .allowed(holder: nil),
        ledger: (OutboundQueue) -> any SubmissionLedger = { $0 }
    ) throws {
        test = try backend.makeDatabase()
        counting = CountingDatabase(test.database, beforeStatement: outage.beforeStatement)
        store = MailStore(database: counting)
        queue = OutboundQueue(database: counting)
        let admission = OutboundAdmission(
            ledger: ledger(queue), sendsOutside: sendsOutside, limits: limits, maxMessageBytes: maxMessageBytes,
            sender: { _ in sender })
        submitter = Submitter(
            admission: admission, delivery: LocalDelivery(directory: Self.directory, store: store, clock: { Self.now }))
    }

    /// A message from `from` with the given extra header lines.
    static func message(from: String = ada, to: String = "carol@far.example", header: String = "", body: String = "Hi")
        -> [UInt8]
    {
        Array("From: \(from)\r\nTo: \(to)\r\n\(header)Subject: Hello\r\n\r\n\(body)\r\n".utf8)
    }

    /// Stores `raw` in `address`'s Drafts as written there (what may be submitted); its id.
    func written(_ raw: [UInt8], in address: String = ada) async throws -> String {
        let message = NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: address, raw: raw)
        return try await store.save(
            message, address: address, quota: 1_000_000, folder: .drafts, keywords: ["$draft"], now: Self.now)
    }

    /// Stores `raw` in `address`'s inbox as received; its id.
    func received(_ raw: [UInt8], in address: String = ada) async throws -> String {
        let message = NewMailMessage(try MIMEParser.parse(raw), envelopeFrom: "someone@far.example", raw: raw)
        return try await store.deliver(
            message, to: [MailStore.Recipient(address: address, quota: 1_000_000)], folder: .inbox, now: Self.now)[0]
    }

    /// Submits `raw` (stored as `id`, written by ada unless given) from ada to `recipients`.
    func submit(
        _ raw: [UInt8], id: String? = nil, to recipients: [String], mailFrom: String? = nil,
        whenHeld: SubmissionRequest.HeldPolicy = .keepInOutbox, sender: String = ada, now: Int64 = now
    ) async throws -> Submitted {
        let emailID: String
        if let id { emailID = id } else { emailID = try await written(raw) }
        return try await submitter.submit(
            SubmissionRequest(
                sender: sender, emailID: emailID, threadID: "T-" + emailID, raw: raw, recipients: recipients,
                mailFrom: mailFrom, whenHeld: whenHeld),
            now: now)
    }

    /// Submits `raw` from ada to `recipients` as the submission listener does: parsed once, its copy kept in her Sent
    /// with the submission.
    func submitKeepingInSent(_ raw: [UInt8], to recipients: [String], now: Int64 = now) async throws -> Submitted {
        let message = try submitter.delivery.message(raw, envelopeFrom: Self.ada)
        return try await submitter.submit(
            SubmissionRequest(sender: Self.ada, keepingInSent: message, recipients: recipients), now: now)
    }

    /// What the ledger recorded for ada (whose directory entry names no account: kept under her address).
    func recorded() async throws -> [SubmissionRecord] {
        try await queue.submissions(accountID: Self.ada, ids: nil)
    }
}

/// The queue as a ledger whose admission check never refuses, as if another submission took the last places between
/// a submission's admission and its record: the record's own check is then the only guard.
struct LateLimitLedger: SubmissionLedger {
    let queue: OutboundQueue

    func record(
        limits: [SendLimit], now: Int64, writing: @escaping @Sendable (any SQLConnection) throws -> NewSubmission
    ) async throws -> SubmissionRecord {
        try await queue.record(limits: limits, now: now, writing: writing)
    }

    func checkLimits(_ limits: [SendLimit], sender: String, holder: SubmissionHolder?, adding: Int, now: Int64)
        async throws
    {}

    func queuedBytes(sender: String) async throws -> Int64 { try await queue.queuedBytes(sender: sender) }

    func submissions(accountID: String, ids: [String]?) async throws -> [SubmissionRecord] {
        try await queue.submissions(accountID: accountID, ids: ids)
    }

    func release(
        submissionID: String, addresses: [String], content: [UInt8], holder: SubmissionHolder?, limits: [SendLimit],
        now: Int64
    ) async throws -> Int {
        try await queue.release(
            submissionID: submissionID, addresses: addresses, content: content, holder: holder, limits: limits, now: now)
    }

    func heldReasons(submissionIDs: [String]) async throws -> [String: HeldReason] {
        try await queue.heldReasons(submissionIDs: submissionIDs)
    }

    func state(accountID: String) async throws -> String { try await queue.state(accountID: accountID) }

    func changes(accountID: String, since state: String, maxChanges: Int) async throws -> SubmissionChanges? {
        try await queue.changes(accountID: accountID, since: state, maxChanges: maxChanges)
    }
}
