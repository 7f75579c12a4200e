import Fetch
import HTTP1
import ServerKit

/// Why a register, login or logout request was refused: a message and the status that carries it.
struct RemoteHashFailure: Error, Sendable {
    let status: HTTPStatus
    let message: String
    /// The error behind a bare 500, kept for the app's log (never shown to the client).
    private(set) var unforeseen: (any Error)?

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The failure for an error the surface's rules did not foresee (storage, signing), through the
    /// shared ``ServiceFailure`` table: 503 with the unavailable message, or 500 keeping `error` to report.
    static func unforeseen(_ error: any Error) -> RemoteHashFailure {
        let failure = ServiceFailure(error)
        var result = failure == .unavailable ? unavailable : internalError
        if failure.shouldLog { result.unforeseen = error }
        return result
    }

    /// A 422 with one of the CONTRACT 3.2 messages.
    static func unprocessable(_ message: String) -> RemoteHashFailure {
        RemoteHashFailure(.unprocessableEntity, message)
    }

    static let busy = RemoteHashFailure(.serviceUnavailable, RemoteHashMessage.busy)
    static let internalError = RemoteHashFailure(.internalServerError, RemoteHashMessage.internalError)
    static let unavailable = RemoteHashFailure(.serviceUnavailable, RemoteHashMessage.unavailable)

    /// The contract message for a fetch error.
    static func fetch(_ error: FetchError) -> RemoteHashFailure {
        switch error {
        case .invalidURL, .insecureScheme: return .unprocessable(RemoteHashMessage.urlInvalid)
        case .notAllowed(let category): return .unprocessable(RemoteHashMessage.urlNotAllowed(category))
        case .bodyTooLarge: return .unprocessable(RemoteHashMessage.notArgon2)
        case .overloaded: return .busy
        case .resolutionFailed, .connectFailed, .timedOut, .tlsFailed, .badStatus, .tooManyRedirects,
            .malformedResponse:
            return .unprocessable(RemoteHashMessage.couldNotFetch)
        }
    }
}
