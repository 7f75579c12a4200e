import HTTP1
import Storage

/// What a surface answers for an error its own rules did not foresee (a storage failure, or anything
/// else thrown from below): one table for every surface, which each renders in its own error shape,
/// `{"error":{"message","hint","docs_url"}}` on `/api/v1`, `{"error":"<code>"}` for the mailbox,
/// `{"error":"<message>"}` or the page for the remote hash.
public enum ServiceFailure: Sendable, Equatable {
    /// The store cannot answer now (`StorageError.isUnavailable`: a full disk, an I/O error, a lock held
    /// past the busy timeout, an unopenable or read-only database): 503, not logged, as it is the store's
    /// state rather than a defect, and `/readyz` reports it.
    case unavailable
    /// Anything else (a damaged database, a misuse, a missing table, an error of another module): a bare
    /// 500, logged with the request id, never detailed to the client.
    case internalError

    /// The failure `error` stands for.
    public init(_ error: any Error) {
        if let storage = error as? StorageError, storage.isUnavailable {
            self = .unavailable
        } else {
            self = .internalError
        }
    }

    /// The status of the answer: 503 or 500.
    public var status: HTTPStatus {
        switch self {
        case .unavailable: .serviceUnavailable
        case .internalError: .internalServerError
        }
    }

    /// Whether the surface reports the error (with the request id) to the app's log.
    public var shouldLog: Bool { self == .internalError }

    /// `response`, the surface's own rendering of this failure, as a middleware's answer: a 503 (the database
    /// unreachable or read-only, the pool full) says when to come back, `Retry-After: 1`, as every surface's; with
    /// ``shouldLog``.
    public func answer(_ response: HTTPResponse) -> (HTTPResponse, Bool) {
        var response = response
        if self == .unavailable { response.headers.setRetryAfter(seconds: 1) }
        return (response, shouldLog)
    }
}

/// Where a surface reports an error it answered with a bare 500, with the request id, for the app's log;
/// the client sees none of it. The errors of the crypto and storage modules never carry secrets.
public typealias UnexpectedErrorReporter = @Sendable (_ error: any Error, _ requestID: String) -> Void
