import MailDoorServer
import MailSignIn

/// IMAP's and POP3's sign-in port filled by the one owner of mail credentials (``MailSignIn``, issue 82) for one door:
/// its outcomes in the port's terms, nothing decided here.
struct MailSignInPort: MailDoorSignIn {
    let owner: MailSignIn
    let door: MailSignIn.Door

    func signIn(username: String, password: String, client: String) async throws -> MailDoorSignInOutcome {
        Self.outcome(try await owner.signIn(at: door, username: username, password: password, client: client))
    }

    func signIn(username: String?, accessToken: String, client: String) async throws -> MailDoorSignInOutcome {
        Self.outcome(try await owner.signIn(at: door, username: username, accessToken: accessToken, client: client))
    }

    private static func outcome(_ outcome: MailSignIn.Outcome) -> MailDoorSignInOutcome {
        switch outcome {
        case .signedIn(let mailbox):
            let standing = MailSessionStanding { try await mailbox.standing().map(MailSessionEnd.init) }
            return .signedIn(MailboxHolder(address: mailbox.address, quota: mailbox.quota, standing: standing))
        case .refused: return .refused
        case .tokenRefused(.invalidToken): return .tokenRefused(.invalidToken)
        case .tokenRefused(.insufficientScope): return .tokenRefused(.insufficientScope)
        case .throttled: return .throttled
        }
    }
}

extension MailSessionEnd {
    init(_ end: MailSignIn.SessionEnd) {
        switch end {
        case .credentialChanged: self = .credentialChanged
        case .credentialRevoked: self = .credentialRevoked
        case .accountDeleted: self = .accountDeleted
        }
    }
}
