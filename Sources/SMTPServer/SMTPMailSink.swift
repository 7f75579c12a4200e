/// What the mail store says of one `RCPT TO` address.
public enum SMTPRecipientVerdict: Sendable, Equatable {
    /// A local mailbox that takes mail: `250 2.1.5`.
    case accept
    /// A local domain with no such mailbox: `550 5.1.1`.
    case unknownLocal
    /// Not a local domain; this server relays nothing: `550 5.7.1`.
    case relayDenied
}

/// The envelope of one received message, as the client gave it.
public struct SMTPEnvelope: Sendable, Equatable {
    /// The `MAIL FROM` reverse path without angle brackets; empty for the null path (`<>`, bounces).
    public var mailFrom: String
    /// The accepted `RCPT TO` addresses, in the order given, without angle brackets.
    public var recipients: [String]
    /// The client's IP address as text.
    public var remoteAddress: String
    /// Who the session authenticated as (the sink's own identity), nil without `AUTH`.
    public var authenticatedAs: String?
    /// The `HELO`/`EHLO` name the client gave.
    public var heloName: String
    /// The client greeted with `EHLO` (ESMTP), not `HELO`.
    public var extended: Bool
    /// The session was under TLS (`STARTTLS`, or the implicit-TLS port).
    public var secured: Bool
    /// The submission sign-in the session made (``SMTPMailSink/signIn(_:client:)``); nil elsewhere.
    public var signIn: SMTPSignIn?
    /// `MAIL FROM`'s RFC 3461 parameters (only where `DSN` is offered).
    public var dsn: SMTPMailParameters
    /// Each recipient's RFC 3461 parameters, in the order of ``recipients``.
    public var recipientDSN: [SMTPRecipientParameters]
    /// The `Received:` field (``SMTPReceivedField``, CRLF-ended) the server puts on top of the message: a sink
    /// stores `traceField + data`, and checks what the client sent (SPF, DKIM) on `data` alone. Filled by the
    /// server when it hands the message over; empty before.
    public var traceField: [UInt8]

    /// Creates an envelope.
    public init(
        mailFrom: String, recipients: [String], remoteAddress: String, authenticatedAs: String? = nil,
        heloName: String = "", extended: Bool = true, secured: Bool = false, traceField: [UInt8] = [],
        signIn: SMTPSignIn? = nil, dsn: SMTPMailParameters = SMTPMailParameters(),
        recipientDSN: [SMTPRecipientParameters]? = nil
    ) {
        self.signIn = signIn
        self.dsn = dsn
        self.recipientDSN = recipientDSN ?? recipients.map { _ in SMTPRecipientParameters() }
        self.mailFrom = mailFrom
        self.recipients = recipients
        self.remoteAddress = remoteAddress
        self.authenticatedAs = authenticatedAs
        self.heloName = heloName
        self.extended = extended
        self.secured = secured
        self.traceField = traceField
    }
}

/// Where received mail goes: the recipient policy and durable delivery (the mail store implements it).
/// Both calls run in a Swift task, off the event loops; they may block on storage.
public protocol SMTPMailSink: Sendable {
    /// Whether `address` (a `RCPT TO` path without angle brackets) may receive mail here.
    func verdict(forRecipient address: String) async -> SMTPRecipientVerdict
    /// Returns a queue id when every recipient's copy is durably stored: `envelope.traceField + data`, the
    /// server's `Received:` field on top (RFC 5321 section 4.4: a server that takes a message must add one). Throws ``SMTPDeliveryRefusal`` when the
    /// message can never be stored (a permanent `5xx`, so that the sender bounces it rather than retrying for days);
    /// any other error makes the server answer `451` (try again later).
    ///
    /// The id is shown to the client in `250 2.0.0 OK queued as <id>`; characters outside printable
    /// ASCII are dropped from it there.
    func deliver(_ envelope: SMTPEnvelope, data: [UInt8]) async throws -> String
    /// Checks `AUTH` credentials (only asked when the server ``SMTPServerConfiguration/requiresAuthentication``):
    /// the identity the session then acts as (it comes back in ``SMTPEnvelope/authenticatedAs``), or nil for
    /// `535 5.7.8`. Must take about as long for a wrong password as for a right one.
    func authenticate(username: String, password: String) async -> String?
    /// Whether the credential that ``authenticate(username:password:)`` took as `identity` is still good (not
    /// revoked, its user not suspended), asked at every `MAIL FROM` of an authenticated session; false answers
    /// `530 5.7.0` and the session must authenticate again.
    /// - Warning: a sink that authenticates must answer this from its store; the default says false.
    func isStillAuthenticated(_ identity: String) async -> Bool
    /// Whose failure-injection rules a session authenticated as `identity` follows (``SMTPChaosScope/user(_:)``):
    /// asked once after a successful `AUTH`, and only when the server's rules go by the user
    /// (``SMTPChaosTarget/Scoping/authenticatedUser``). Nil (the default): none.
    func chaosScope(ofIdentity identity: String) async -> String?
    /// A submission listener's `AUTH` (``SMTPServerConfiguration/submission``): whom `credentials` sign in, the
    /// client at `client` (the PROXY header's address when a balancer sent one) counted toward the sign-in backoff.
    /// Must take about as long for a wrong password as for a right one. Default: nobody.
    func signIn(_ credentials: SMTPAuthCredentials, client: String) async -> SMTPSignInOutcome
    /// Whether a session signed in as `signIn` may begin a transaction from `mailFrom` (asked at each `MAIL FROM`):
    /// the credential still good, the mailbox one that sends, `mailFrom` its address. Default: the sign-in ended.
    func admit(mailFrom: String, as signIn: SMTPSignIn) async -> SMTPSenderVerdict
}

extension SMTPMailSink {
    /// A receiving MX authenticates nobody.
    public func authenticate(username: String, password: String) async -> String? { nil }

    /// A sink that authenticates nobody vouches for nobody.
    public func isStillAuthenticated(_ identity: String) async -> Bool { false }

    /// No user's rules.
    public func chaosScope(ofIdentity identity: String) async -> String? { nil }

    /// A sink that takes no submission signs nobody in.
    public func signIn(_ credentials: SMTPAuthCredentials, client: String) async -> SMTPSignInOutcome { .refused }

    /// A sink that signs nobody in admits no sender.
    public func admit(mailFrom: String, as signIn: SMTPSignIn) async -> SMTPSenderVerdict { .signInEnded }
}

/// Why the sink refuses a message for good; each is a permanent reply, never the temporary `451`.
public enum SMTPDeliveryRefusal: Error, Sendable, Equatable {
    /// A recipient's mailbox is full: `552 5.2.2` (RFC 3463: mailbox full).
    case mailboxFull
    /// The message passes one of the content parser's limits: `554 5.6.0` (RFC 3463: other media error).
    case unreadableContent
    /// Every recipient stopped existing between `RCPT TO` and the end of the message: `550 5.1.1`.
    case noSuchRecipient
    /// Refused with the sink's own reply (a submission's refusals: the sender rule, a limit, the quota, the message's
    /// `From`), 4xx or 5xx as it says.
    case reply(SMTPSinkReply)
}
