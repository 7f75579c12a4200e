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
    /// The `AUTHENTICATE PLAIN`/`LOGIN` exchange under way.
    private var sasl = PasswordSASL()
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
        switch await signIn.attempt(username: username, password: password, client: client, logger: logger) {
        case .signedIn(let holder)?:
            self.holder = holder
            return .succeeded(user: holder.address)
        case .refused?:
            return .failed(.authenticationFailed)
        case .throttled?, nil:
            return .failed(.unavailable)
        }
    }

    /// One step of `AUTHENTICATE PLAIN` or `AUTHENTICATE LOGIN` (``PasswordSASL``, the exchange POP3's `AUTH` shares).
    func authenticate(_ step: SASLStep) async -> IMAPAuthenticationOutcome {
        switch sasl.step(step) {
        case .challenge(let challenge): return .challenge(challenge)
        case .credentials(let username, let password): return await login(username: username, password: password)
        case .malformed: return .failed(.authenticationFailed)
        case .otherAuthorization: return .failed(.authorizationFailed)
        case .unsupported: return .failed(.cannot)
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
