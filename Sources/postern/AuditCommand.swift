import ArgumentParser
import PosternApp
import PosternOperations

/// `postern audit`: the audit trail, oldest first.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit trail: sign-ins, inboxes, apps, domains, Pro tokens and operator commands.",
        discussion: """
            One line per event, oldest first (the newest --limit events that match): time, action, who (owner, pro, \
            operator, app), target, the owner it belongs to, the client address and details. Events are kept \
            POSTERN_AUDIT_DAYS (90). A control character in what was recorded (an email typed at the sign-in form) \
            is shown as an escape, \\u{0A}; --json prints one JSON object a line with the exact text.
            """)
    @OptionGroup var options: DataOptions
    @Option(help: "Only events at or after this time: 2026-11-01T00:00:00Z, Unix seconds, or a time ago (10m, 2h, 7d).")
    var since: String?
    @Option(help: "Only the events of the owner with this email (what their /owner page shows).") var owner: String?
    @Option(help: "Most events shown (default 1000).") var limit = 1000
    @Flag(help: "One JSON object a line (the exact text; control characters as \\u escapes).") var json = false

    func run() async throws {
        let (configuration, logger) = try await options.loadWithLogger()
        do {
            for line in try await Operations.auditLines(
                configuration: configuration, since: since, ownerEmail: owner, limit: limit, json: json, logger: logger)
            {
                Terminal.write(line)
            }
        } catch let error as Operations.AuditQueryError {
            // The message alone, not the usage: the flags were well formed, their value was not.
            throw CommandFailure(error.description)
        }
    }
}
