/// The work a session hands to the sink (through `SMTPService`) and the answers it takes back, as
/// classes: the loop carries them as `any AnyObject & Sendable` (see `ConnectionStateMachine`).
extension SMTPSessionMachine {
    /// Work for the sink, off the loop.
    public final class Job: Sendable {
        /// What the session asks.
        public enum Request: Sendable, Equatable {
            /// May `recipient` receive mail here?
            case verdict(recipient: String)
            /// Store this message for every recipient of the envelope.
            case deliver(SMTPEnvelope, data: [UInt8])
            /// Who do these `AUTH` credentials name?
            case authenticate(username: String, password: String)
            /// Is the credential that `AUTH` proved as `identity` still good (asked at each `MAIL FROM`)?
            case confirm(identity: String)
            /// A submission listener's `AUTH`: whom do these credentials sign in, for a client at `client`?
            case signIn(SMTPAuthCredentials, client: String)
            /// A submission listener's `MAIL FROM:<mailFrom>` of a session signed in as `signIn`: may it begin?
            case admit(mailFrom: String, signIn: SMTPSignIn)
            /// A failure-injection rule stalls the session: wait this long, then answer ``Completion/Outcome/stalled``.
            case stall(seconds: Int)
        }

        /// What the session asks.
        public let request: Request

        init(_ request: Request) {
            self.request = request
        }
    }

    /// The sink's answer to a `Job`.
    public final class Completion: Sendable {
        /// What the sink answered.
        public enum Outcome: Sendable, Equatable {
            /// The verdict on a recipient.
            case verdict(SMTPRecipientVerdict)
            /// The message is durably stored under `queueID`.
            case delivered(queueID: String)
            /// The message could not be stored for now: `451`, and the transaction is reset.
            case deliveryFailed
            /// The message can never be stored: a permanent `5xx`, and the transaction is reset.
            case refused(SMTPDeliveryRefusal)
            /// The credentials name this identity, or (nil) nobody; with the failure-injection scope the identity
            /// belongs to (``SMTPMailSink/chaosScope(ofIdentity:)``), asked only when the server's rules go by it.
            case authenticated(String?, chaosScope: String? = nil)
            /// Whether the identity's credential is still good: false answers `530` and the session must `AUTH`
            /// again.
            case confirmed(Bool)
            /// What a submission listener's sign-in came to.
            case signedIn(SMTPSignInOutcome)
            /// What the sink says of a submission's `MAIL FROM`.
            case admitted(SMTPSenderVerdict)
            /// A stall asked for by a failure-injection rule is over.
            case stalled
        }

        /// What the sink answered.
        public let outcome: Outcome

        /// Wraps the sink's answer.
        public init(_ outcome: Outcome) {
            self.outcome = outcome
        }
    }
}
