import MailSignIn
import SMTPSubmission

/// The submission listener's sign-in port filled by the one owner of mail credentials (``MailSignIn``, at its
/// `submission` door: an owner's token needs `mail.send` there): its outcomes in the port's terms, nothing decided
/// here.
struct SubmissionSignInPort: SubmissionSignIn {
    let owner: MailSignIn

    func signIn(username: String, password: String, client: String) async throws -> SubmissionSignInOutcome {
        Self.outcome(try await owner.signIn(at: .submission, username: username, password: password, client: client))
    }

    func signIn(username: String?, accessToken: String, client: String) async throws -> SubmissionSignInOutcome {
        Self.outcome(
            try await owner.signIn(at: .submission, username: username, accessToken: accessToken, client: client))
    }

    private static func outcome(_ outcome: MailSignIn.Outcome) -> SubmissionSignInOutcome {
        switch outcome {
        case .signedIn(let mailbox):
            return .signedIn(
                SubmissionMailbox(
                    address: mailbox.address, quota: mailbox.quota, accountID: mailbox.accountID,
                    sends: mailbox.sends, standing: { try await mailbox.standing() == nil }))
        case .refused: return .refused
        case .tokenRefused(.invalidToken): return .tokenRefused(.invalidToken)
        case .tokenRefused(.insufficientScope): return .tokenRefused(.insufficientScope)
        case .throttled: return .throttled
        }
    }
}
