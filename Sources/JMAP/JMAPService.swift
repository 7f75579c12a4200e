import ClientAddress
import Directory
import HTTP1
import JSON
import MailDelivery
import MailStore
import MailSubmission
import ServerKit

/// JMAP (RFC 8620 core, RFC 8621 mail and submission, RFC 9404 blobs) over the local mail store, serving the
/// principal its authenticator finds in a request's bearer: `GET /.well-known/jmap`, `POST /jmap/api`,
/// `POST /jmap/upload/{accountId}`, `GET /jmap/download/{accountId}/{blobId}/{name}`, `GET /jmap/eventsource`, and
/// `GET /jmap/ws` (RFC 8887, JMAP over WebSocket).
public struct JMAPService: Sendable {
    let configuration: JMAPConfiguration
    let authenticator: any PrincipalAuthenticator
    let store: MailStore
    let directory: any AccountDirectory
    let delivery: LocalDelivery
    let clock: @Sendable () -> Int64
    let onSubmission: @Sendable (SubmissionOutcome) async -> Void
    /// Where submissions are recorded and whether outside recipients leave.
    let outbound: JMAPOutbound
    /// The one owner of a submission, over ``outbound`` and local delivery.
    let submitter: Submitter
    let onUnexpectedError: UnexpectedErrorReporter
    /// Told when an event stream opens or closes and of each event pushed (metrics).
    let onEventStream: @Sendable (EventStreamActivity) -> Void
    /// The open event streams, against their caps.
    let eventStreams: EventStreamLimiter<ClientAddressKey>
    /// The per-client buckets (nil when rate limits are off) and the problem-details error shape.
    let middleware: SurfaceMiddleware<RateClass>

    /// What a request draws on: the API (and the session, and downloads), uploads, or the volume of blobs
    /// created (the upload URL and `Blob/upload`, in KiB).
    enum RateClass: Hashable, Sendable {
        case request
        case upload
        case uploadVolume
    }

    /// What an event stream did, for metrics.
    public enum EventStreamActivity: Sendable, Equatable {
        case opened
        case closed
        /// An event went out: a `state` event, or a `ping`.
        case pushed(isState: Bool)
    }

    /// How one submitted message went, for metrics, and for the audit trail when an agent sent it for its owner.
    public struct SubmissionOutcome: Sendable, Equatable {
        public var delivered: Int
        public var keptInOutbox: Int
        public var refused: Int
        /// Outside recipients queued to leave.
        public var queued: Int = 0
        /// The ledger's id of the submission.
        public var submissionID: String = ""
        /// The sending inbox's address.
        public var sender: String = ""
        /// Whom the request came from (its address key), for the audit trail.
        public var client: String = ""
        /// Who acted for the owner, when a delegated access token (token exchange) sent it; nil otherwise.
        public var delegation: Delegation? = nil

        /// - Parameters: see the properties.
        public init(
            delivered: Int, keptInOutbox: Int, refused: Int, queued: Int = 0, submissionID: String = "",
            sender: String = "", client: String = "", delegation: Delegation? = nil
        ) {
            self.delivered = delivered
            self.keptInOutbox = keptInOutbox
            self.refused = refused
            self.queued = queued
            self.submissionID = submissionID
            self.sender = sender
            self.client = client
            self.delegation = delegation
        }
    }

    /// - Parameters:
    ///   - configuration: where JMAP is served and its limits.
    ///   - authenticator: who a request's bearer acts as (the agent capability token, in this release).
    ///   - store: the mail store.
    ///   - directory: which addresses are local (submission's recipients, the Reply-To rule).
    ///   - delivery: local delivery of submitted messages.
    ///   - clock: Unix seconds.
    ///   - onSubmission: called with each submission's outcome (metrics, and the audit line of one a delegated token
    ///     sent).
    ///   - onUnexpectedError: called with each error answered with a bare 500.
    ///   - onEventStream: told when an event stream opens or closes and of each event pushed.
    ///   - monotonicClock: the rate limits' clock.
    ///   - outbound: where submissions are recorded and whether outside recipients leave. Required: every
    ///     submission is recorded in the ledger, with each outside recipient queued or held (issue 67 item 5).
    public init(
        configuration: JMAPConfiguration, authenticator: any PrincipalAuthenticator, store: MailStore,
        directory: any AccountDirectory, delivery: LocalDelivery, clock: @escaping @Sendable () -> Int64,
        onSubmission: @escaping @Sendable (SubmissionOutcome) async -> Void = { _ in },
        onUnexpectedError: @escaping UnexpectedErrorReporter = { _, _ in },
        onEventStream: @escaping @Sendable (EventStreamActivity) -> Void = { _ in },
        monotonicClock: MonotonicClock = .system, outbound: JMAPOutbound
    ) {
        self.outbound = outbound
        submitter = Submitter(admission: outbound, delivery: delivery)
        self.onEventStream = onEventStream
        eventStreams = EventStreamLimiter<ClientAddressKey>(
            maxTotal: configuration.maxEventStreams, maxPerKey: configuration.maxEventStreamsPerClient)
        self.configuration = configuration
        self.authenticator = authenticator
        self.store = store
        self.directory = directory
        self.delivery = delivery
        self.clock = clock
        self.onSubmission = onSubmission
        self.onUnexpectedError = onUnexpectedError
        let rates = (
            request: TokenBucketRate(requests: configuration.requestsPerMinute, perSeconds: 60)
                .share(among: configuration.instances),
            upload: TokenBucketRate(requests: configuration.uploadsPerMinute, perSeconds: 60)
                .share(among: configuration.instances),
            volume: TokenBucketRate(requests: configuration.uploadBytesPerMinute / 1024, perSeconds: 60)
                .share(among: configuration.instances)
        )
        self.middleware = SurfaceMiddleware(
            limiter: configuration.rateLimitsEnabled
                ? RateLimitTable(capacity: configuration.rateLimitTableCapacity, clock: monotonicClock) {
                    switch $0 {
                    case .request: rates.request
                    case .upload: rates.upload
                    case .uploadVolume: rates.volume
                    }
                } : nil,
            tooManyRequests: { rateClass, decision in RequestError.tooManyRequests(rateClass, decision).response },
            failure: { [baseURL = configuration.baseURL] error in
                if let error = error as? RequestError { return (error.response, false) }
                if let refusal = error as? AuthenticationRefusal { return (Self.response(refusal, baseURL), false) }
                let failure = ServiceFailure(error)
                return failure.answer(RequestError.serverFailure(failure).response)
            },
            onUnexpectedError: onUnexpectedError)
    }

    public func register(into router: inout ContextRouter) {
        router.add(
            .GET, "/.well-known/jmap",
            .deferred { request, context, _ in
                await authenticated(request, context) { account in try await session(account) }
            })
        router.add(
            .GET, "/jmap/eventsource",
            .stream { request, context, _, writer in
                let task = Task { await eventSource(request, context, writer) }
                writer.onEnd { task.cancel() }
            })
        router.add(
            .GET, Self.webSocketPath,
            .webSocket { request, context, _, handshake in webSocketAnswer(request, context, handshake) })
        // `/jmap` is the resource OAuth clients name (and send to); `/jmap/api` is the session's apiUrl.
        for path in ["/jmap", "/jmap/api"] {
            router.add(
                .POST, path, bodyLimit: configuration.maxSizeRequest,
                .deferred { request, context, _ in
                    await authenticated(request, context) { account in
                        try await api(request, account, client: context.clientKey)
                    }
                })
        }
        router.add(
            .POST, "/jmap/upload/{accountId}", bodyLimit: configuration.maxSizeUpload,
            .deferred { request, context, parameters in
                await authenticated(request, context, .upload) { account in
                    try await upload(
                        request, account: account, accountID: parameters["accountId"] ?? "", client: context.clientKey)
                }
            })
        router.add(
            .GET, "/jmap/download/{accountId}/{blobId}/{name}",
            .deferred { request, context, parameters in
                await authenticated(request, context) { account in
                    try await download(request, account: account, parameters: parameters)
                }
            })
    }

    /// The account of the principal the request's bearer proves, or nil (401): no bearer, or one the
    /// authenticator refuses. `client` is the request context's address, for the authenticator's audit of the
    /// token's use.
    /// - Throws: storage errors of the authenticator.
    func authenticate(_ request: HTTPRequest, client: IPAddress?) async throws -> JMAPAccount? {
        guard let token = request.bearerToken else { return nil }
        let credentials = Credentials(bearerToken: token, headers: Array(request.headers), client: client)
        return try await authenticator.principal(for: credentials).map(JMAPAccount.init)
    }

    /// Event streams open on this instance now (the `postern_jmap_event_streams` gauge).
    public var openEventStreams: Int { eventStreams.openCount }

    /// Runs `body` with the account `request`'s bearer opens, under `rateClass`'s limit; the API's 401 (or its refusal)
    /// when none.
    func authenticated(
        _ request: HTTPRequest, _ context: RequestContext, _ rateClass: RateClass = .request,
        _ body: (JMAPAccount) async throws -> HTTPResponse
    ) async -> HTTPResponse {
        await middleware.run(rateClass, context) {
            guard let account = try await authenticate(request, client: context.clientAddress) else {
                return RequestError.unauthorized.response
            }
            return try await body(account)
        }
    }

    /// Takes `bytes` about to be kept as a blob from `client`'s upload volume; nil when allowed (or the limits
    /// are off), otherwise the refusal with its retry time.
    func takeUploadVolume(_ bytes: Int, for client: ClientAddressKey) -> RateLimitDecision? {
        guard let decision = middleware.limiter?.take(.uploadVolume, for: client, cost: (bytes + 1023) / 1024),
            !decision.allowed
        else { return nil }
        return decision
    }

    /// An authenticator's refusal in the contract's shape (`api-docs/oauth-mcp-contract.md` 1.13), with the
    /// RFC 6750 `WWW-Authenticate` challenge of a 401 or an `insufficient_scope` 403.
    static func response(_ refusal: AuthenticationRefusal, _ baseURL: String) -> HTTPResponse {
        var response = HTTPResponse.noStoreJSON(
            HTTPStatus(code: refusal.status), refusal.body(publicURL: baseURL))
        if let challenge = refusal.challenge() { response.headers.add("WWW-Authenticate", challenge) }
        return response
    }
}
