import ServerKit
import Synchronization

/// The request ids a surface reported errors for (its `onUnexpectedError`), for tests.
public final class RequestIDLog: Sendable {
    private let ids = Mutex<[String]>([])

    /// Creates an empty log.
    public init() {}

    /// The reporter to give a surface.
    public var reporter: UnexpectedErrorReporter { { _, requestID in self.ids.withLock { $0.append(requestID) } } }

    /// Every request id reported, in order.
    public var all: [String] { ids.withLock { $0 } }
}
