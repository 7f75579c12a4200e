import JSON
import MailboxAccounts
import Storage

/// A Pro user's SMTP sandbox (`migrations/sqlite/0019_mailbox_sandbox.sql`).
struct SandboxRecord: Sendable, Equatable {
    var ownerID: String
    var accountID: String
    /// Where the captured copies are kept in the mail store.
    var address: String
    var createdAt: Int64
}

/// What the sandbox adds to one captured message.
struct SandboxMessageRecord: Sendable, Equatable {
    var messageID: String
    /// The envelope's `RCPT TO` addresses, in order.
    var recipients: [String]
    var clientIP: String
    /// `{"spf","dkim","dmarc",...}`; nil when the message was not evaluated.
    var authResults: JSONValue?
}

/// The sandbox's own rows (`migrations/*/0019_mailbox_sandbox.sql`): each Pro user's sandbox and what it adds to its
/// captured messages (their copies are in the mail store; a record goes with its message, whoever deletes it: migration
/// 0067's trigger). Only this target reads or writes these tables.
public struct SandboxStore: Sendable {
    let database: any SQLDatabase

    /// A store over a database migrated through `0019_mailbox_sandbox.sql`.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// The user's sandbox, or nil before its first SMTP connection.
    func sandbox(ownerID: String) async throws -> SandboxRecord? {
        try await database.read { try Self.sandbox(ownerID: ownerID, $0) }
    }

    private static func sandbox(ownerID: String, _ connection: any SQLConnection) throws -> SandboxRecord? {
        try connection.query(
            "SELECT owner_id, account_id, address, created_at FROM mailbox_sandboxes WHERE owner_id = ?",
            [.text(ownerID)]
        ).first.flatMap(Self.sandbox)
    }

    /// The user's sandbox, made now with `candidate`'s id and address when there is none. Two first connections at
    /// once make one: the primary key decides, and both read the winner.
    func ensureSandbox(_ candidate: SandboxRecord) async throws -> SandboxRecord {
        try await database.write { connection in
            _ = try connection.run(
                """
                INSERT INTO mailbox_sandboxes (owner_id, account_id, address, created_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (owner_id) DO NOTHING
                """,
                [
                    .text(candidate.ownerID), .text(candidate.accountID), .text(candidate.address),
                    .integer(candidate.createdAt),
                ])
            guard let stored = try Self.sandbox(ownerID: candidate.ownerID, connection) else {
                throw MailboxError.internalError
            }
            return stored
        }
    }

    /// Records what the sandbox shows beside a captured copy.
    func insertSandboxMessage(_ record: SandboxMessageRecord, ownerID: String, now: Int64) async throws {
        let recipients = String(
            decoding: JSONValue.array(record.recipients.map(JSONValue.string)).serialize(), as: UTF8.self)
        let results = record.authResults.map { SQLValue.text(String(decoding: $0.serialize(), as: UTF8.self)) } ?? .null
        _ = try await database.write { connection in
            try connection.run(
                """
                INSERT INTO mailbox_sandbox_messages (message_id, owner_id, recipients, client_ip, auth_results,
                    created_at) VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(record.messageID), .text(ownerID), .text(recipients), .text(record.clientIP), results,
                    .integer(now),
                ])
        }
    }

    /// The sandbox's record of message `messageID` of `ownerID`, or nil.
    func sandboxMessage(_ messageID: String, ownerID: String) async throws -> SandboxMessageRecord? {
        try await database.read { connection in
            guard
                let row = try connection.query(
                    """
                    SELECT message_id, recipients, client_ip, auth_results FROM mailbox_sandbox_messages
                        WHERE message_id = ? AND owner_id = ?
                    """, [.text(messageID), .text(ownerID)]
                ).first, let id = row.text("message_id"), let recipientsText = row.text("recipients"),
                let clientIP = row.text("client_ip")
            else { return nil }
            let recipients = (try? JSONValue.parse(Array(recipientsText.utf8)))?.arrayValue?.compactMap(\.stringValue)
            return SandboxMessageRecord(
                messageID: id, recipients: recipients ?? [], clientIP: clientIP,
                authResults: row.text("auth_results").flatMap { try? JSONValue.parse(Array($0.utf8)) })
        }
    }

    private static func sandbox(_ row: SQLRow) -> SandboxRecord? {
        guard let owner = row.text("owner_id"), let account = row.text("account_id"),
            let address = row.text("address"), let createdAt = row.int("created_at")
        else { return nil }
        return SandboxRecord(ownerID: owner, accountID: account, address: address, createdAt: createdAt)
    }
}
