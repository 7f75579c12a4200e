import Foundation
import LeasedQueue
import MailDelivery
import SMTPOutcomes
import Storage

extension OutboundQueue {
    /// The recipients' lease, as every leased queue holds its rows.
    static let rows = LeasedRows(
        table: "outbound_recipients", nextAttempt: "next_attempt", leaseUntil: "lease_until",
        waiting: [LeasedRows.Match("status", .text("queued"))])

    /// Leases due recipients, oldest due first, and returns them as batches: one per message per destination domain,
    /// each carrying every due, unleased recipient of that message at that domain (so `limit`, the recipients picked
    /// to start from, may be passed by the rest of their batches). Batches come in the order their first recipient
    /// fell due.
    public func claim(now: Int64, limit: Int) async throws -> [OutboundClaim] {
        let token = LeasedRows.newToken()
        let leaseUntil = now + leaseSeconds
        return try await database.write { connection in
            try connection.transaction {
                let picked = try Self.rows.due(
                    ["submission_id", "domain"], orderedBy: ["next_attempt", "submission_id", "position"],
                    limit: limit, now: now, connection)
                var groups: [BatchKey] = []
                for row in picked {
                    guard let submission = row.text("submission_id"), let domain = row.text("domain") else { continue }
                    let key = BatchKey(submission: submission, domain: domain)
                    if !groups.contains(key) { groups.append(key) }
                }
                for key in groups {
                    try Self.rows.lease(
                        where: [LeasedRows.Match("submission_id", .text(key.submission)),
                            LeasedRows.Match("domain", .text(key.domain))],
                        to: token, until: leaseUntil, now: now, connection)
                }
                return try Self.claims(groups, token: token, connection)
            }
        }
    }

    private struct BatchKey: Hashable {
        var submission: String
        var domain: String
    }

    /// The batches leased under `token`, in the order of `groups`.
    private static func claims(_ groups: [BatchKey], token: String, _ connection: any SQLConnection) throws
        -> [OutboundClaim]
    {
        var recipients: [BatchKey: [(address: String, attempts: Int64)]] = [:]
        for row in try connection.query(
            """
            SELECT submission_id, domain, address, attempts FROM outbound_recipients WHERE \(rows.heldBy)
            ORDER BY submission_id, domain, position
            """, [.text(token)])
        {
            guard let submission = row.text("submission_id"), let domain = row.text("domain"),
                let address = row.text("address")
            else { continue }
            recipients[BatchKey(submission: submission, domain: domain), default: []].append(
                (address, row.int("attempts") ?? 0))
        }
        var claims: [OutboundClaim] = []
        var messages: [String: (sender: String, sendAt: Int64, content: [UInt8])] = [:]
        for key in groups {
            guard let leased = recipients[key], !leased.isEmpty else { continue }
            if messages[key.submission] == nil {
                guard
                    let row = try connection.query(
                        """
                        SELECT s.sender, s.send_at, c.content FROM outbound_submissions s
                        JOIN outbound_contents c ON c.submission_id = s.id WHERE s.id = ?
                        """, [.text(key.submission)]
                    ).first, let sender = row.text("sender"), let sendAt = row.int("send_at"),
                    let content = row.blob("content")
                else { continue }
                messages[key.submission] = (sender, sendAt, content)
            }
            guard let message = messages[key.submission] else { continue }
            claims.append(
                OutboundClaim(
                    batch: OutboundBatch(
                        messageID: key.submission, sender: message.sender, domain: key.domain,
                        recipients: leased.map(\.address), content: message.content,
                        attempts: Int(leased.map(\.attempts).max() ?? 0)),
                    leaseToken: token, sendAt: message.sendAt))
        }
        return claims
    }

    /// Records the outcomes of one attempt at `claim`, in one transaction: delivered recipients `delivered`, failed
    /// ones `failed` (a failure that condemns the recipient's address, ``DeliveryFailure/condemnsRecipientAddress``,
    /// also suppresses it for ``OutboundQueueConfiguration/suppressSeconds``; a refused sender suppresses no one),
    /// deferred ones due again after the next retry delay (moved by up to 10% either way, ``jitter``), or `failed`
    /// once the message has been queued ``OutboundQueueConfiguration/maxQueueSeconds``. A recipient of the claim without an outcome is released for
    /// another attempt at once. The account's `EmailSubmission` state moves on. Nothing is recorded when the claim lost
    /// its lease (it ran out and another claim took the recipients, or the operator deleted the message); otherwise
    /// ``onSubmissionChange`` is told of the new state. A deferred recipient past
    /// ``OutboundQueueConfiguration/delayNoticeSeconds`` since the message was queued, not yet noticed, is marked
    /// noticed and returned in ``OutboundCompletion/delayed``.
    ///
    /// With ``reports``, the sender is told in its inbox, in this same transaction: the recipients that failed for good
    /// in one bounce, linked to the submission, and those just marked noticed in one delay notice. A crash loses the
    /// completion and its reports together or neither, and no report is written twice for one completion.
    /// - Returns: the recipients that ended, those deferred, those whose delay was told, the reports' ids, or that the
    ///   lease was lost.
    /// - Throws: storage errors (the reports' included): nothing is recorded, and the lease runs out.
    @discardableResult
    public func complete(_ claim: OutboundClaim, _ outcomes: [OutboundOutcome], now: Int64) async throws
        -> OutboundCompletion
    {
        let configuration = configuration
        let batch = claim.batch
        let reports = reports
        let jitter = jitter
        // The sender's mailbox is found before the transaction (the directory is asked); only when a failure may end
        // or a delay may be told.
        let age = now - claim.sendAt
        let noticeDue = configuration.delayNoticeSeconds > 0 && age >= Int64(configuration.delayNoticeSeconds)
        let mayReport = outcomes.contains {
            switch $0.status {
            case .failed: true
            case .deferred: noticeDue || age >= Int64(configuration.maxQueueSeconds)
            case .queued, .held: noticeDue
            case .delivered: false
            }
        }
        let destination = mayReport ? try await reports?.mailbox.reportDestination(for: batch.sender) : nil
        let completion = try await database.write { connection in
            try connection.transaction { () throws -> OutboundCompletion in
                let held = try connection.query(
                    """
                    SELECT id, address, attempts, delay_notified_at FROM outbound_recipients
                    WHERE submission_id = ? AND domain = ? AND \(Self.rows.heldBy) AND status = 'queued'
                    """, [.text(batch.messageID), .text(batch.domain), .text(claim.leaseToken)])
                guard !held.isEmpty else { return OutboundCompletion(ended: [], deferred: [], leaseLost: true) }
                var rows: [String: (id: String, attempts: Int64, delayNotified: Bool)] = [:]
                for row in held {
                    guard let id = row.text("id"), let address = row.text("address") else { continue }
                    let noticed = (row.int("delay_notified_at") ?? 0) > 0
                    rows[address.lowercased()] = (id, row.int("attempts") ?? 0, noticed)
                }
                let noticeAfter = Int64(configuration.delayNoticeSeconds)
                var delayed: [OutboundCompletion.Delayed] = []
                var ended: [OutboundCompletion.Ended] = []
                var deferred: [(recipient: String, nextAttempt: Int64)] = []
                for outcome in outcomes {
                    guard let row = rows.removeValue(forKey: outcome.recipient.lowercased()) else { continue }
                    let attempt = row.attempts + 1
                    var nextAttempt = now
                    var expired = false
                    var suppressed = false
                    // What the attempt leaves the recipient in: the outcome, unless a deferral outlived the queue.
                    var recorded = outcome.status
                    switch outcome.status {
                    case .delivered:
                        break
                    case .held:
                        // The sender may no longer send outside (the dispatcher asked again): held until released.
                        break
                    case .queued:
                        // No transport answers this: the recipient waits for another attempt.
                        recorded = .deferred(.client(.notAttempted))
                        nextAttempt = now + configuration.retryDelay(afterAttempt: Int(attempt), jitter: jitter())
                    case .failed(let failure):
                        if failure.condemnsRecipientAddress {
                            suppressed = true
                            try connection.run(
                                """
                                INSERT INTO outbound_suppressions (address, suppressed_until, reason) VALUES (?, ?, ?)
                                ON CONFLICT (address) DO UPDATE SET suppressed_until = excluded.suppressed_until,
                                    reason = excluded.reason
                                """,
                                [
                                    .text(outcome.recipient.lowercased()),
                                    .integer(now + Int64(configuration.suppressSeconds)),
                                    .text(failure.reply.description),
                                ])
                        }
                    case .deferred(let failure):
                        if now - claim.sendAt >= Int64(configuration.maxQueueSeconds) {
                            expired = true
                            recorded = .failed(failure)
                        } else {
                            nextAttempt = now + configuration.retryDelay(afterAttempt: Int(attempt), jitter: jitter())
                        }
                    }
                    let reply = recorded.map(delivered: { $0 }, failure: { $0.reply })
                    try connection.run(
                        """
                        UPDATE outbound_recipients SET status = ?, smtp_reply = ?, held_reason = ?, attempts = ?,
                            next_attempt = ?, \(Self.rows.released), updated_at = ? WHERE id = ?
                        """,
                        [
                            .text(Self.column(recorded)), .text(Self.line(reply)), Self.heldColumn(recorded),
                            .integer(attempt), .integer(nextAttempt), .integer(now), .text(row.id),
                        ])
                    if recorded.isWaiting {
                        deferred.append((outcome.recipient, nextAttempt))
                        if noticeAfter > 0, now - claim.sendAt >= noticeAfter, !row.delayNotified {
                            // Marked here, under the lease: one notice per recipient, whichever instance sends it.
                            try connection.run(
                                "UPDATE outbound_recipients SET delay_notified_at = ? WHERE id = ?",
                                [.integer(now), .text(row.id)])
                            delayed.append(
                                OutboundCompletion.Delayed(
                                    recipient: outcome.recipient, status: recorded, remoteHost: outcome.remoteHost,
                                    willRetryUntil: claim.sendAt + Int64(configuration.maxQueueSeconds)))
                        }
                    } else if case .held = recorded {
                        // Neither ended nor deferred: it waits for a release (or the operator's delete).
                    } else {
                        ended.append(
                            OutboundCompletion.Ended(
                                recipient: outcome.recipient, status: recorded, remoteHost: outcome.remoteHost,
                                expired: expired, suppressed: suppressed))
                    }
                }
                for row in rows.values {
                    try connection.run(
                        "UPDATE outbound_recipients SET \(Self.rows.released) WHERE id = ?",
                        [.text(row.id)])
                }
                if let account = try connection.query(
                    "SELECT account_id FROM outbound_submissions WHERE id = ?", [.text(batch.messageID)]
                ).first?.text("account_id") {
                    let seq = try Self.bump(account, connection)
                    try connection.run(
                        "UPDATE outbound_submissions SET updated_seq = ? WHERE id = ?",
                        [.integer(seq), .text(batch.messageID)])
                }
                let bounce = try Self.bounce(
                    claim, ended, destination: destination, reports: reports, now: now, connection)
                let notice = try Self.delayNotice(
                    claim, delayed, destination: destination, reports: reports, now: now, connection)
                try Self.dropContentIfDone(batch.messageID, connection)
                return OutboundCompletion(
                    ended: ended, deferred: deferred, leaseLost: false, delayed: delayed, bounceEmailID: bounce,
                    delayNoticeEmailID: notice)
            }
        }
        if !completion.leaseLost { onSubmissionChange(batch.sender) }
        if completion.bounceEmailID != nil || completion.delayNoticeEmailID != nil, let destination {
            reports?.mailbox.reportStored(in: destination)
        }
        return completion
    }

    /// Writes the delay notice of `delayed` (the recipients this completion marked noticed) into the sender's mailbox
    /// on `connection`; nil when none is due, there is nowhere to put it, or the mailbox refused it.
    private static func delayNotice(
        _ claim: OutboundClaim, _ delayed: [OutboundCompletion.Delayed], destination: SenderReportDestination?,
        reports: SenderReports?, now: Int64, _ connection: any SQLConnection
    ) throws -> String? {
        guard let until = delayed.map(\.willRetryUntil).max(), let reports, let destination else { return nil }
        let notice = reports.writer.delayNotice(
            for: claim.batch, arrivalDate: claim.sendAt,
            delayed: delayed.map {
                OutboundOutcome(recipient: $0.recipient, status: $0.status, remoteHost: $0.remoteHost)
            },
            willRetryUntil: until, now: now)
        return try reports.mailbox.storeReport(notice, in: destination, now: now, on: connection)
    }

    /// Writes the bounce of `ended`'s failures into the sender's mailbox on `connection` and links it to the
    /// submission; nil when nothing failed, there is nowhere to put it, or the mailbox refused it.
    private static func bounce(
        _ claim: OutboundClaim, _ ended: [OutboundCompletion.Ended], destination: SenderReportDestination?,
        reports: SenderReports?, now: Int64, _ connection: any SQLConnection
    ) throws -> String? {
        let failed = ended.filter { if case .failed = $0.status { true } else { false } }
        guard !failed.isEmpty, let reports, let destination else { return nil }
        let report = reports.writer.report(
            for: claim.batch, arrivalDate: claim.sendAt,
            failed: failed.map { OutboundOutcome(recipient: $0.recipient, status: $0.status, remoteHost: $0.remoteHost) },
            expired: failed.contains { $0.expired }, now: now)
        guard let emailID = try reports.mailbox.storeReport(report, in: destination, now: now, on: connection) else {
            return nil
        }
        try connection.run(
            "INSERT INTO outbound_bounces (submission_id, email_id, created_at) VALUES (?, ?, ?)",
            [.text(claim.batch.messageID), .text(emailID), .integer(now)])
        return emailID
    }

    /// The reply line stored for a recipient in `status` (its reply, or the one of why it was not delivered).
    static func line(_ status: DeliveryStatus<SMTPReply, SMTPReply>) -> String {
        switch status {
        case .queued: Self.queuedReply
        case .held(let reason): RecipientState.heldReply(reason)
        case .delivered(let reply), .deferred(let reply), .failed(let reply): reply.description
        }
    }

    /// Moves the leases of `claims` (one connection's batches) on to one lease from `now`, in one transaction, while
    /// their attempt runs. Returns the claims still held, in order: one that lost its lease (it ran out and another
    /// claim took the recipients, the operator deleted the message, or every recipient was completed) is left out.
    public func renew(_ claims: [OutboundClaim], now: Int64) async throws -> [OutboundClaim] {
        let leaseUntil = now + leaseSeconds
        return try await database.write { connection in
            try connection.transaction {
                try claims.filter { claim in
                    try connection.run(
                        """
                        UPDATE outbound_recipients SET lease_until = ?
                        WHERE submission_id = ? AND domain = ? AND \(Self.rows.heldBy) AND status = 'queued'
                        """,
                        [
                            .integer(leaseUntil), .text(claim.batch.messageID), .text(claim.batch.domain),
                            .text(claim.leaseToken),
                        ]) > 0
                }
            }
        }
    }

    /// ``renew(_:now:)`` of one claim: false when it lost its lease.
    @discardableResult
    public func renew(_ claim: OutboundClaim, now: Int64) async throws -> Bool {
        try await !renew([claim], now: now).isEmpty
    }

    /// Whether this queue's database serves one instance only (SQLite: one process opens it to serve), so that every
    /// lease found at start is a dead process's.
    public var isSingleInstance: Bool { database.dialect == .sqlite }

    /// Gives back every lease (a server on SQLite at start: the process that held them is gone); the recipients are
    /// due again as they were. Returns how many recipients were released.
    @discardableResult
    public func releaseAllLeases() async throws -> Int {
        try await database.write { connection in
            try connection.run(
                """
                UPDATE outbound_recipients SET \(Self.rows.released)
                WHERE status = 'queued' AND lease_token IS NOT NULL
                """)
        }
    }

    /// When the next queued recipient falls due (or its lease runs out), nil when none waits.
    public func nextDue() async throws -> Int64? {
        try await database.read { try Self.rows.nextDue($0) }
    }
}
