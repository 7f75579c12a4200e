import Foundation
import JMAP
import Logging
import MailStore
import MailSubmission
import PosternApp
import SMTPOutcomes
import Time

/// The operator commands behind `postern mail outbox`: held mail, and its release.
extension Operations {
    /// `postern mail outbox`: one line per message held in this server's outbox (submitted for other domains and not
    /// sent), with the reason it is held when one was recorded.
    public static func outbox(configuration: PosternConfiguration, logger: Logger) async throws -> [String] {
        let (database, mail) = try commandMail(configuration, logger: logger)
        let outbound = Surfaces.outboundAdmission(configuration, mail: mail, database: database)
        return try await outbound.heldMail(sender: nil, store: mail.store).map { held in
            let entry = held.entry
            let created = RFC3339.format(entry.createdAt)
            var line = "\(entry.id)  from \(entry.sender)  to \(entry.recipients.joined(separator: ","))  "
                + "\(entry.size) bytes  \(created)"
            if let reason = held.reason { line += "  held: \(reason.explanation)" }
            return line
        }
    }

    /// `postern mail outbox --release ID|--all`: releases held mail through the checks of a new submission
    /// (``OutboundAdmission/admit(sender:quota:adding:raw:now:)``): one line per message, released (its recipients queued
    /// to leave) or still held and why; when any stays held, a last line saying that the judgement was this command's
    /// configuration's (issue 68: it said "outbound delivery is off" while the running server had relay on).
    /// - Parameter id: the outbox entry to release; nil releases every one.
    /// - Throws: ``OutboxReleaseError/notFound`` for an id the outbox does not hold; storage errors.
    public static func releaseOutbox(configuration: PosternConfiguration, id: String?, logger: Logger) async throws
        -> [String]
    {
        let (database, mail) = try commandMail(configuration, logger: logger)
        let outbound = Surfaces.outboundAdmission(configuration, mail: mail, database: database)
        var ids = id.map { [$0] } ?? []
        if id == nil { ids = try await mail.store.outbox().map(\.id) }
        var lines: [String] = []
        var held = false
        for id in ids {
            guard
                let outcome = try await outbound.release(
                    id: id, sender: nil, store: mail.store, directory: mail.directory, now: unixNow())
            else { throw OutboxReleaseError.notFound(id) }
            lines.append("\(id)  " + Self.words(outcome))
            if case .released = outcome {} else { held = true }
            recordOperator(
                database, target: "mail outbox release", details: ["id": id, "outcome": Self.words(outcome)],
                logger: logger)
        }
        if held { lines.append(Self.judgedHere(configuration)) }
        return lines
    }

    /// The line that says a release was judged by this command's own configuration, not a running server's.
    static func judgedHere(_ configuration: PosternConfiguration) -> String {
        "judged with this command's configuration (POSTERN_OUTBOUND_DELIVERY=\(configuration.outbound.mode.rawValue) "
            + "here); a running server's settings are not read: give this command the server's --config"
    }

    /// A release's outcome in words, for the operator.
    static func words(_ outcome: HeldRelease) -> String {
        switch outcome {
        case .released(let count): "released: \(count) recipient\(count == 1 ? "" : "s") queued to leave"
        case .stillHeld(.outboundOff): "still held: outbound delivery is off in this command's configuration"
        case .stillHeld(let reason): "still held: \(reason.explanation)"
        case .refused(let why): "still held: \(why)"
        case .unrecorded: "still held: kept before releases were recorded; send it again"
        case .senderNotLocal(let sender): "still held: \(sender) is no mailbox here any more."
        }
    }
}

/// Why `postern mail outbox --release` released nothing.
public enum OutboxReleaseError: Error, Equatable, CustomStringConvertible {
    /// The outbox holds no message with that id.
    case notFound(String)

    public var description: String {
        switch self {
        case .notFound(let id): "the outbox holds no message \(id)"
        }
    }
}
