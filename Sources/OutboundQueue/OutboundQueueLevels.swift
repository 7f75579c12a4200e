import Storage

/// How full the outbound queue is at one moment, as `/metrics` shows it: the messages with a recipient still waiting,
/// split by whether an attempt was made yet, and how long the oldest of them has waited. Every instance over the same
/// database reads the same figures.
public struct OutboundQueueLevels: Sendable, Equatable {
    /// Messages with a recipient waiting and no attempt at any of them yet (just submitted, or not reached by a
    /// dispatcher): `postern_outbound_queue_messages{state="queued"}`.
    public var queuedMessages: Int64
    /// Messages with a recipient waiting after at least one attempt deferred (a 4xx, no connection, a timeout):
    /// `postern_outbound_queue_messages{state="deferred"}`.
    public var deferredMessages: Int64
    /// Seconds since the oldest waiting message was submitted, 0 when none waits:
    /// `postern_outbound_oldest_queued_seconds`.
    public var oldestQueuedSeconds: Int64

    /// - Parameters: see the properties.
    public init(queuedMessages: Int64, deferredMessages: Int64, oldestQueuedSeconds: Int64) {
        self.queuedMessages = queuedMessages
        self.deferredMessages = deferredMessages
        self.oldestQueuedSeconds = oldestQueuedSeconds
    }
}

extension OutboundQueue {
    /// The queue's levels at `now` (Unix seconds): each message with a recipient still `queued` counts once, as
    /// deferred when one of its waiting recipients has been attempted, else as queued.
    public func levels(now: Int64) async throws -> OutboundQueueLevels {
        try await database.read { connection in
            let row = try connection.query(
                """
                SELECT COUNT(*) AS messages, SUM(CASE WHEN attempted > 0 THEN 1 ELSE 0 END) AS deferred,
                    MIN(send_at) AS oldest
                FROM (
                    SELECT r.submission_id, MAX(r.attempts) AS attempted, MIN(s.send_at) AS send_at
                    FROM outbound_recipients r JOIN outbound_submissions s ON s.id = r.submission_id
                    WHERE r.status = 'queued' GROUP BY r.submission_id
                ) AS waiting
                """, []
            ).first
            let messages = row?.int("messages") ?? 0
            let deferred = row?.int("deferred") ?? 0
            let oldest = row?.int("oldest").map { max(0, now - $0) } ?? 0
            return OutboundQueueLevels(
                queuedMessages: messages - deferred, deferredMessages: deferred, oldestQueuedSeconds: oldest)
        }
    }
}
