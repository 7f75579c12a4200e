import Foundation
import MailDoorServer
import MailStore
import ServerTLS

/// The one mailbox the mail doors' server tests (IMAPServerTests, POP3ServerTests) sign in to: its address, password
/// and access tokens, its mail, and the certificate their TLS listeners present.
public enum MailDoorHolder {
    public static let address = "pop@mail.localhost"
    public static let password = "pop-secret"
    /// An access token as long as Postern's own (a JWT), past a POP3 command line's 510 bytes once in an `AUTH`.
    public static let token = "eyJ" + String(repeating: "t", count: 700)
    /// A token that opens the holder without `mail.read`.
    public static let sendOnlyToken = "eyJ" + String(repeating: "s", count: 700)

    /// The certificate and key of the TLS tests' listeners (a temporary self-signed pair, its files removed).
    public static let tlsContext: TLSServerContext = {
        let certificate = try! TemporaryCertificate()
        defer { certificate.remove() }
        return try! certificate.context()
    }()

    /// One message per subject delivered to the holder's INBOX; their store ids, in order.
    public static func deliver(_ store: MailStore, _ subjects: [String]) async throws -> [String] {
        var ids: [String] = []
        for subject in subjects {
            let raw = Array("From: a@example.com\r\nSubject: \(subject)\r\n\r\nbody of \(subject)\r\n".utf8)
            ids += try await store.deliver(
                NewMailMessage(envelopeFrom: "a@example.com", subject: subject, raw: raw),
                to: [.init(address: address, quota: 1_000_000)], folder: .inbox, now: 1_700_000_000)
        }
        return ids
    }
}

/// The sign-in port as the composition root fills it, for ``MailDoorHolder`` alone: what each attempt named as its
/// client is kept, so a test sees the PROXY header's address reach the sign-in.
public final class OneHolderSignIn: MailDoorSignIn, @unchecked Sendable {
    // @unchecked: `seen` is only touched under `lock`.
    private let lock = NSLock()
    private var seen: [String] = []

    public init() {}

    public func signIn(username: String, password: String, client: String) async throws -> MailDoorSignInOutcome {
        lock.withLock { seen.append(client) }
        guard username == MailDoorHolder.address, password == MailDoorHolder.password else { return .refused }
        return .signedIn(MailboxHolder(address: MailDoorHolder.address, quota: 1_000_000))
    }

    /// ``MailDoorHolder/token`` opens the holder (named or not); ``MailDoorHolder/sendOnlyToken`` lacks the scope;
    /// any other token is invalid.
    public func signIn(username: String?, accessToken: String, client: String) async throws -> MailDoorSignInOutcome {
        lock.withLock { seen.append(client) }
        guard username == nil || username == MailDoorHolder.address else { return .tokenRefused(.invalidToken) }
        switch accessToken {
        case MailDoorHolder.token:
            return .signedIn(MailboxHolder(address: MailDoorHolder.address, quota: 1_000_000))
        case MailDoorHolder.sendOnlyToken: return .tokenRefused(.insufficientScope)
        default: return .tokenRefused(.invalidToken)
        }
    }

    /// The client of each attempt so far, in order.
    public var clients: [String] { lock.withLock { seen } }
}

/// Refuses every sign-in; the TLS tests look only at the sign-in jobs the machine asks for.
public struct RefusingSignIn: MailDoorSignIn {
    public init() {}

    public func signIn(username: String, password: String, client: String) async throws -> MailDoorSignInOutcome {
        .refused
    }

    public func signIn(username: String?, accessToken: String, client: String) async throws -> MailDoorSignInOutcome {
        .tokenRefused(.invalidToken)
    }
}
