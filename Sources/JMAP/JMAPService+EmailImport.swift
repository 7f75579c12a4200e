import JSON
import MIME
import MailStore
import Time

extension JMAPService {
    /// `Email/import` (RFC 8621 section 4.8): each of `emails` stores the message a blob holds (an upload, or another
    /// Email's `blobId`) in one mailbox, with its `keywords` and `receivedAt` (now when absent), as IMAP's `APPEND`
    /// stores one: a copy in the inbox counts as received, one elsewhere as written by the account. The message is
    /// kept as its bytes are; `invalidEmail` when they start with no header field (RFC 5322 section 3.6 asks for
    /// at least `From` and `Date`; the parser reads anything, so this is the line drawn).
    func emailImport(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        let oldState = try await stateBeforeSet(arguments, call)
        guard let emails = try arguments.object("emails") else {
            throw MethodError.invalidArguments("`emails` is required: creation ids mapped to EmailImport objects.")
        }
        try checkSetSize(emails.count)
        var response = SetResponse()
        for (creationID, value) in emails {
            do {
                guard let object = value.objectValue else {
                    throw SetError.invalidProperties("An EmailImport must be an object.", [])
                }
                let email = try await importEmail(JMAPArguments(pairs: object), call)
                call.createdIDs[creationID] = email["id"]?.stringValue
                response.created.append((creationID, email))
            } catch let error as SetError {
                response.notCreated.append((creationID, error.json))
            }
        }
        let states = try await statesAfterSet(before: oldState, touched: response.touchedIDs, call)
        return .object([
            ("accountId", .string(call.account.id)), ("oldState", states.old), ("newState", states.new),
            ("created", response.created.isEmpty ? .null : .object(response.created)),
            ("notCreated", response.notCreated.isEmpty ? .null : .object(response.notCreated)),
        ])
    }

    /// Stores one EmailImport; returns the new Email's `id`, `blobId`, `threadId` and `size`.
    private func importEmail(_ properties: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        // Every property at fault is named at once (RFC 8620 section 5.3), each with its reason.
        var faults: [SetError] = []
        let known: Set<String> = ["blobId", "mailboxIds", "keywords", "receivedAt"]
        for (name, _) in properties.pairs where !known.contains(name) {
            faults.append(.invalidProperties("`\(name)` is not an EmailImport property.", [name]))
        }
        let given = properties["blobId"]?.stringValue
        if given == nil { faults.append(.invalidProperties("`blobId` names the blob that holds the message.", ["blobId"])) }
        var placement: (folder: MailFolder, keywords: Set<String>)?
        do {
            placement = try Self.placement(properties, call)
        } catch {
            faults.append(error)
        }
        var receivedAt = clock()
        if let value = properties.present("receivedAt") {
            if let text = value.stringValue, let seconds = RFC3339.parse(text) {
                receivedAt = seconds
            } else {
                faults.append(.invalidProperties("`receivedAt` is a date such as 2026-01-31T12:00:00Z.", ["receivedAt"]))
            }
        }
        guard let given, let placement, faults.isEmpty else {
            throw SetError.invalidProperties(
                faults.map(\.description).joined(separator: " "), faults.flatMap { $0.properties ?? [] })
        }
        let (folder, keywords) = (placement.folder, placement.keywords)
        guard let id = call.id(given), let blob = try await store.blob(address: call.account.address, id: id) else {
            var error = SetError(.blobNotFound, description: "No blob \(given) in this account.")
            error.notFound = [.string(given)]
            throw error
        }
        guard blob.data.count <= configuration.maxSizeUpload else {
            throw SetError(.tooLarge, description: "A message may be at most \(configuration.maxSizeUpload) bytes.")
        }
        let limits = MIMELimits(maximumMessageBytes: configuration.maxSizeUpload)
        guard let parsed = try? MIMEParser.parse(blob.data, limits: limits), !parsed.headers.isEmpty else {
            throw SetError(.invalidEmail, description: "The blob holds no message: RFC 5322 puts header fields first.")
        }
        let record = NewMailMessage(parsed, envelopeFrom: call.account.address, raw: blob.data)
        let stored: String
        do {
            stored = try await store.deliver(
                record, to: [MailStore.Recipient(address: call.account.address, quota: call.account.quota)],
                folder: folder, keywords: keywords, isRead: keywords.contains("$seen"),
                origin: folder == .inbox ? .received : .written, now: receivedAt)[0]
        } catch MailStoreError.quotaExceeded {
            throw SetError(.overQuota, description: "The account's mail would pass its quota.")
        } catch MailStoreError.keywordLimit(let limit) {
            throw keywordRefusal(limit)
        }
        let thread = try await store.message(address: call.account.address, id: stored)?.summary.threadID ?? stored
        return .object([
            ("id", .string(stored)), ("blobId", .string("M" + stored)), ("threadId", .string(thread)),
            ("size", .int(Int64(blob.data.count))),
        ])
    }
}
