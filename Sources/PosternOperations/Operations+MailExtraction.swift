import EmailAddresses
import Logging
import MailStore
import PosternApp

extension Operations {
    /// `postern mail extract --backfill`: gives every stored message that has no extraction (stored before migration
    /// 0068, or by an instance of the release before during a rolling upgrade) its codes and links, in batches of
    /// `batch`, telling `progress` a line after each ("filled N, M left"); returns the closing line. Resumable: a run
    /// stopped halfway loses nothing, and the next goes on with the messages still without one.
    public static func mailExtractBackfill(
        configuration: PosternConfiguration, batch: Int = 100, logger: Logger,
        progress: (String) -> Void = { _ in }
    ) async throws -> String {
        let database = try migratedDatabase(configuration, logger: logger)
        let store = MailStore(database: database)
        var total = 0
        var left = 0
        repeat {
            let round = try await store.extractMissing(batch: batch)
            total += round.filled
            left = round.remaining
            guard round.filled > 0 else { break }  // none was left to read (or each went as it was read)
            progress("filled \(round.filled), \(round.remaining) left")
        } while left > 0
        recordOperator(database, target: "mail extract", details: ["filled": String(total)], logger: logger)
        return left == 0
            ? "\(total) messages filled; every stored message has its codes and links"
            : "\(total) messages filled; \(left) left (run it again)"
    }
}

/// What `postern mail code` found.
public enum MailCodeAnswer: Sendable, Equatable {
    /// The best code of the newest message that has one, and that message's id.
    case code(String, messageID: String)
    /// No message gave a code in time: why, in words.
    case none(String)
}

extension Operations {
    /// The longest `postern mail code --wait`.
    public static let mailCodeWaitMaximum = Duration.seconds(3600)

    /// `postern mail code --address A [--wait D]`: the best code of the newest inbox message stored under `address`
    /// that has one; when none has, the wait rides the store's change stream up to `wait` (on PostgreSQL hearing the
    /// server's deliveries through `LISTEN postern_mail`, on SQLite looking again each second), so a delivery that
    /// commits answers at once.
    public static func mailCode(
        configuration: PosternConfiguration, address: String, wait: Duration = .zero, logger: Logger
    ) async throws -> MailCodeAnswer {
        let database = try migratedDatabase(configuration, logger: logger)
        let store = MailStore(database: database)
        let key = EmailAddress.key(address)
        let listener = wait > .zero ? store.listenToOtherInstances() : nil
        defer { listener?.stop() }
        let withCode = MailSelection(.address(key), .all([.inFolder(.inbox), .hasCode(true)]), limit: 1)
        let found = try await store.waitFor(address: key, timeout: wait) {
            guard let newest = try await store.list(withCode).first,
                let code = try await store.extraction(address: key, id: newest.id)?.codes.first
            else { return nil as MailCodeAnswer? }
            return .code(code.value, messageID: newest.id)
        }
        if let found { return found }
        let inbox = MailSelection(.address(key), .inFolder(.inbox))
        let held = try await store.list(inbox).map(\.id)
        let waited = wait > .zero ? " after waiting \(wait.components.seconds) s" : ""
        guard !held.isEmpty else { return .none("\(key): no message in its inbox\(waited)") }
        let unread = held.count - (try await store.extractions(in: .address(key), ids: held).count)
        let backfill =
            unread > 0
            ? "; \(unread) stored before codes were found at delivery (postern mail extract --backfill)" : ""
        return .none("\(key): none of its \(held.count) messages has a one-time code\(waited)\(backfill)")
    }
}
