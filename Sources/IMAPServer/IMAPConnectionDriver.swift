import Base64Coding
import IMAP
import Logging
import MailStore

/// One connection's side of IMAP that needs the store: the sign-in checks, every mailbox command and the selected
/// mailbox's view. An actor, so that a command and an IDLE's look at the store never run at once; everything here
/// runs off the event loops, in the tasks ``IMAPService`` starts.
actor IMAPConnectionDriver {
    let store: MailStore
    let signIn: any IMAPSignIn
    /// The client's address (the PROXY header's when a balancer sent one).
    let client: String
    /// The wall clock, Unix seconds.
    let now: @Sendable () -> Int64
    let logger: Logger
    /// The mailbox the session acts for, once signed in.
    var holder: IMAPMailboxHolder?
    /// The selected mailbox, as the client knows it.
    var view: IMAPMailboxView?
    /// The UIDs of the last `SEARCH ... RETURN (SAVE)` (RFC 5182's `$`).
    var saved: [UInt32] = []
    /// The user name an `AUTHENTICATE LOGIN` gave, while it waits for the password.
    private var loginUser: String?
    /// The task that watches the change stream while the client idles.
    private var idleWatch: Task<Void, Never>?

    init(store: MailStore, signIn: any IMAPSignIn, client: String, now: @escaping @Sendable () -> Int64, logger: Logger) {
        self.store = store
        self.signIn = signIn
        self.client = client
        self.now = now
        self.logger = logger
    }

    // MARK: - Sign-in

    func login(username: String, password: String) async -> IMAPAuthenticationOutcome {
        await outcome { try await signIn.signIn(username: username, password: password, client: $0) }
    }

    /// A sign-in with an OAuth access token (OAUTHBEARER, XOAUTH2): refused with RFC 7628's error JSON as the
    /// challenge before the `NO [AUTHENTICATIONFAILED]`.
    func login(bearer: SASLBearer) async -> IMAPAuthenticationOutcome {
        await outcome { try await signIn.signIn(username: bearer.user, accessToken: bearer.token, client: $0) }
    }

    /// What the port's answer comes to for the session; the holder kept when signed in.
    private func outcome(_ check: (String) async throws -> IMAPSignInOutcome) async -> IMAPAuthenticationOutcome {
        do {
            switch try await check(client) {
            case .signedIn(let holder):
                self.holder = holder
                return .succeeded(user: holder.address)
            case .refused:
                return .failed(.authenticationFailed)
            case .tokenRefused(let refusal):
                return .failed(.authenticationFailed, errorChallenge: Self.errorChallenge(refusal))
            case .throttled:
                return .failed(.unavailable)
            }
        } catch {
            logger.error("imap sign-in failed", metadata: ["error": .string(String(describing: type(of: error)))])
            return .failed(.unavailable)
        }
    }

    /// RFC 7628 §3.2.2's error: the status and the scope IMAP needs (no `openid-configuration`: the discovery
    /// document is at the issuer's `/.well-known/oauth-authorization-server`, which the client already used).
    static func errorChallenge(_ refusal: IMAPTokenRefusal) -> SASLMessage {
        let status = refusal == .insufficientScope ? "insufficient_scope" : "invalid_token"
        return SASLMessage(base64: Base64.encode(Array(#"{"status":"\#(status)","scope":"mail.read"}"#.utf8)))
    }

    /// One step of `AUTHENTICATE PLAIN` (RFC 4616: `authzid NUL authcid NUL password`, the authorization identity
    /// empty or the same user) or `AUTHENTICATE LOGIN` (the user name, then the password, each asked for).
    func authenticate(_ step: SASLStep) async -> IMAPAuthenticationOutcome {
        guard let bytes = step.response.base64.isEmpty ? [] : Base64.decode(step.response.base64) else {
            return .failed(.authenticationFailed)
        }
        switch step.mechanism {
        case "PLAIN":
            if step.isFirst && bytes.isEmpty { return .challenge(SASLMessage(base64: "")) }
            let fields = bytes.split(separator: 0, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return .failed(.authenticationFailed) }
            let (authorization, user) = (String(decoding: fields[0], as: UTF8.self), String(decoding: fields[1], as: UTF8.self))
            guard authorization.isEmpty || authorization == user else { return .failed(.authorizationFailed) }
            return await login(username: user, password: String(decoding: fields[2], as: UTF8.self))
        case "LOGIN":
            if step.isFirst { loginUser = nil }
            if loginUser == nil {
                if bytes.isEmpty && step.isFirst { return .challenge(SASLMessage(base64: Base64.encode(Array("Username:".utf8)))) }
                loginUser = String(decoding: bytes, as: UTF8.self)
                return .challenge(SASLMessage(base64: Base64.encode(Array("Password:".utf8))))
            }
            let user = loginUser ?? ""
            loginUser = nil
            return await login(username: user, password: String(decoding: bytes, as: UTF8.self))
        case "OAUTHBEARER", "XOAUTH2":
            if step.isFirst && bytes.isEmpty { return .challenge(SASLMessage(base64: "")) }
            let bearer = step.mechanism == "XOAUTH2" ? SASLBearer(xoauth2: bytes) : SASLBearer(oauthBearer: bytes)
            guard let bearer else {
                return .failed(.authenticationFailed, errorChallenge: Self.errorChallenge(.invalidToken))
            }
            return await login(bearer: bearer)
        default:
            return .failed(.cannot)
        }
    }

    // MARK: - IDLE

    /// Watches the signed-in address's change stream until ``endIdle()``: each change's responses (``refresh()``)
    /// go to `notify`.
    func startIdle(notify: @escaping @Sendable ([IMAPUntaggedResponse]) -> Void) {
        idleWatch?.cancel()
        guard let address = holder?.address, view != nil else { return }
        let stream = store.changeStream(of: address)
        idleWatch = Task { [weak self] in
            do {
                for try await event in stream {
                    guard case .changed = event, let self else { continue }
                    let responses = try await self.refresh()
                    if !responses.isEmpty { notify(responses) }
                }
            } catch {
                return  // cancelled (IDLE ended, the connection closed) or the store failed: the next command looks again
            }
        }
    }

    func endIdle() {
        idleWatch?.cancel()
        idleWatch = nil
    }

    /// The selected mailbox looked at again: what the client must be told of changes since its last look (its
    /// EXPUNGEs held back when `holdingExpunges`, ``IMAPMailboxView/sync(to:holdingExpunges:)``).
    func refresh(holdingExpunges: Bool = false) async throws -> [IMAPUntaggedResponse] {
        guard let holder, let folder = view?.folder else { return [] }
        let snapshot = try await store.uidSnapshot(address: holder.address, folder: folder, now: now())
        guard view?.folder == folder else { return [] }
        return view?.sync(to: snapshot, holdingExpunges: holdingExpunges) ?? []
    }
}
