import Logging

/// A connection listening on a database's notification channel (PostgreSQL's `LISTEN`), made by
/// ``SQLDatabase/listen(on:logger:onPayloads:)``: how one instance hears what another committed.
public protocol SQLNotificationListener: AnyObject, Sendable {
    /// Stops listening and waits until the connection is closed (blocks up to a connection attempt's timeout: call
    /// it off the cooperative pool). Calling it again does nothing.
    func stop()
}

extension SQLDatabase {
    /// SQLite's: nil. Every process writing one SQLite file is told nothing by the others; whoever must hear them
    /// looks again (the mail change stream's look interval).
    public func listen(
        on channel: String, logger: Logger, onPayloads: @escaping @Sendable ([String]?) -> Void
    ) -> (any SQLNotificationListener)? {
        nil
    }
}
