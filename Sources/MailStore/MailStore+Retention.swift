import Storage

/// Mail kept for a while only: the messages of every address on some domains, deleted once older than a retention
/// (mail.cx's implicit mailboxes, kept an hour). The triggers move each address's state and log the deletions, as for
/// any delete, so JMAP and the change streams see them.
extension MailStore {
    /// Deletes the messages of addresses on `domains` (lower-cased) received before `before` (Unix seconds), with their
    /// attachments; returns how many went.
    public static func purgeMessages(
        _ connection: any SQLConnection, onDomains domains: [String], receivedBefore before: Int64
    ) throws -> Int {
        guard !domains.isEmpty else { return 0 }
        let matches = Array(repeating: "address LIKE ? ESCAPE '\\'", count: domains.count).joined(separator: " OR ")
        return try connection.run(
            "DELETE FROM mail_messages WHERE received_at < ? AND (\(matches))",
            [.integer(before)] + domains.map { .text("%@" + MailFilter.escapeLike($0)) })
    }

    /// Purges the messages of `domains` older than `retention` seconds every `interval`, reading the time from `now`
    /// (injected), until the schedule is cancelled; keep the schedule.
    public func startPurgingMessages(
        onDomains domains: [String], olderThan retention: Int64, every interval: Duration,
        now: @escaping @Sendable () -> Int64
    ) -> PurgeSchedule {
        PurgeSchedule.start(every: interval, on: database, purging: "messages past their retention") {
            try Self.purgeMessages($0, onDomains: domains, receivedBefore: now() - retention)
        }
    }
}
