import Logging
import Storage

/// What the surfaces record through: an ``AuditLog`` (or none) and the clock. Recording never fails the action it
/// follows: a failed write is logged at error level and the action stands. Record after the action committed.
public struct AuditTrail: Sendable {
    /// The log written to; nil records nothing (tests and tools without a database).
    public let log: (any AuditLog)?
    /// Unix seconds.
    public let clock: @Sendable () -> Int64
    let logger: Logger

    /// - Parameters:
    ///   - log: where events go.
    ///   - clock: Unix seconds, the events' time.
    ///   - logger: told about a failed write.
    public init(
        _ log: (any AuditLog)?, clock: @escaping @Sendable () -> Int64, logger: Logger = Logger(label: "postern.audit")
    ) {
        self.log = log
        self.clock = clock
        self.logger = logger
    }

    /// A trail that records nothing.
    public static let disabled = AuditTrail(nil, clock: { 0 })

    /// Stores what `make` builds with the current time; logs a failure and returns normally.
    public func record(_ make: (Int64) -> AuditEvent) async {
        guard let log else { return }
        let event = make(clock())
        do {
            try await log.record(event)
        } catch {
            logger.error(
                "audit event not recorded",
                metadata: ["action": "\(event.action.rawValue)", "target": "\(event.target)", "error": "\(error)"])
        }
    }

    /// Whether this trail's events are rows of `database` (its log is that database's ``SQLAuditLog``): an action
    /// written there may then write its line in its own write (``SQLAuditLog/insert(_:_:)``), one commit for both,
    /// instead of a second write after it.
    public func logs(to database: any SQLDatabase) -> Bool {
        (log as? SQLAuditLog)?.database === database
    }

    /// An owner's own action on their trail (``AuditEvent/owner(_:_:target:client:details:time:)``).
    public func owner(
        _ ownerID: String, _ action: AuditAction, target: String, client: String? = nil, details: String? = nil
    ) async {
        await record { .owner(ownerID, action, target: target, client: client, details: details, time: $0) }
    }
}
