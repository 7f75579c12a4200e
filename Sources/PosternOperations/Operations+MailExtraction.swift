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

