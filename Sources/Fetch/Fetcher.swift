import ComputePool
import OutboundSocket
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A completed fetch: a 2xx response and its (size-capped) body.
public struct FetchResponse: Sendable, Equatable {
    /// The final status: always 2xx from ``Fetcher/fetch(_:)``, any status from ``Fetcher/post(_:headers:body:)``.
    public var status: Int
    /// The final response head.
    public var head: ResponseHead
    /// The body, at most ``FetchConfiguration/maxBodyBytes`` bytes.
    public var body: [UInt8]
    /// The URL that produced this response, after redirects.
    public var url: FetchURL
    /// How many redirects were followed.
    public var redirects: Int
}

/// Something that fetches a URL's body under the address policy; ``Fetcher`` is the real one.
public protocol URLFetching: Sendable {
    /// Fetches `url` (GET), following vetted redirects.
    /// - Throws: ``FetchError`` only.
    func fetch(_ url: String) async throws(FetchError) -> FetchResponse
}

/// The safe outbound HTTP/1.1 client for remote hashes (CONTRACT 3.3).
///
/// For each URL and each redirect: parse strictly; resolve the host once (through the resolver it is given, the
/// server's `POSTERN_DNS_RESOLVER`; or the literal); vet every address with the ``AddressPolicy`` and refuse the host if any is refused; then
/// connect to a vetted address (no second lookup), sending `Host` and SNI with the name. TLS checks
/// the chain and the host name. Blocking I/O runs on the fetcher's own bounded threads.
public final class Fetcher: URLFetching {
    /// The configuration this fetcher was built with.
    public let configuration: FetchConfiguration
    private let tls: OutboundTLSContext
    private let resolver: any HostResolver
    private let pool: WorkerPool
    private let attempts = Atomic<Int>(0)

    /// Builds a fetcher. The TLS context (the trust roots) and the I/O threads are made on first use.
    /// - Parameter resolver: how host names are looked up: the server's one resolver (`POSTERN_DNS_RESOLVER`), or
    ///   the system's for the command line's own client.
    /// - Throws: ``FetchError/tlsFailed`` when `trustedRootsPEMFile` is set and cannot be read.
    public init(configuration: FetchConfiguration = FetchConfiguration(), resolver: any HostResolver)
        throws(FetchError)
    {
        self.configuration = configuration
        self.tls = try FetchError.mapping { () throws(SocketError) in
            try OutboundTLSContext(trustedRootsPEMFile: configuration.trustedRootsPEMFile)
        }
        self.resolver = resolver
        self.pool = WorkerPool(
            threads: configuration.concurrentFetches, queueLimit: configuration.queueLimit, name: "postern-fetch")
        // A peer that closes mid-write must not kill the process (OpenSSL writes with write(2)).
        signal(SIGPIPE, SIG_IGN)
    }

    /// How many TCP connections this fetcher has tried to open (for tests and metrics).
    public var connectionAttempts: Int { attempts.load(ordering: .relaxed) }

    /// I/O threads started so far (they start on demand; for tests).
    var startedThreads: Int { pool.startedThreads }

    /// Refuses new fetches (``FetchError/overloaded``), lets the queued ones finish and joins the I/O
    /// threads. For a clean process exit.
    public func shutdown() {
        pool.shutdown()
    }

    /// Runs `body` on the fetcher's I/O threads.
    /// - Throws: what `body` throws; ``FetchError/overloaded`` at once when the queue is full.
    private func onIOThread(_ body: @escaping @Sendable () throws(FetchError) -> FetchResponse) async throws(FetchError)
        -> FetchResponse
    {
        let result: Result<FetchResponse, FetchError>
        do {
            result = try await pool.run { Result(catching: body) }
        } catch {
            // `run` throws nothing but `WorkerPoolError.overloaded` for work that cannot throw.
            throw .overloaded
        }
        return try result.get()
    }

    /// Fetches `url` on the fetcher's I/O threads.
    /// - Throws: ``FetchError``; ``FetchError/overloaded`` at once when the queue is full.
    public func fetch(_ url: String) async throws(FetchError) -> FetchResponse {
        // The deadline starts now, so time spent waiting for a thread counts against it too.
        let deadline = Deadline.after(configuration.totalTimeout)
        return try await onIOThread { [self] () throws(FetchError) in try fetchBlocking(url, deadline: deadline) }
    }

    /// Fetches `url` on the calling thread, blocking for up to ``FetchConfiguration/totalTimeout``.
    /// - Warning: never call this on a socket event queue or a Swift concurrency thread.
    /// - Throws: ``FetchError``.
    public func fetchBlocking(_ url: String) throws(FetchError) -> FetchResponse {
        try fetchBlocking(url, deadline: Deadline.after(configuration.totalTimeout))
    }

    private func fetchBlocking(_ url: String, deadline: Deadline) throws(FetchError) -> FetchResponse {
        if deadline.hasPassed { throw .timedOut }
        var current = try FetchURL(parsing: url)
        var redirects = 0
        while true {
            let (head, stream) = try request(current, headers: [("Accept", configuration.accept)], deadline: deadline)
            if [301, 302, 303, 307, 308].contains(head.status), let location = head["Location"] {
                guard redirects < configuration.maxRedirects else { throw .tooManyRedirects }
                redirects += 1
                current = try current.resolving(location)
                continue
            }
            guard (200...299).contains(head.status) else { throw .badStatus(head.status) }
            let body = try readBody(stream, deadline: deadline)
            return FetchResponse(status: head.status, head: head, body: body, url: current, redirects: redirects)
        }
    }

    /// Sends one GET to `url` with `headers` on the fetcher's I/O threads and returns the response whatever its
    /// status, its deadline running from the call as ``fetch(_:)``'s does.
    ///
    /// Same address policy, timeouts, TLS checks and size limits as ``fetch(_:)``, but redirects are not followed:
    /// the headers may carry a credential (`Authorization: Bearer` for an API), which a redirect must not take to
    /// another host. For JSON APIs whose error statuses carry a body worth reading (a provider's userinfo, GitHub's).
    /// - Parameter headers: extra request headers; an `Accept` among them replaces ``FetchConfiguration/accept``.
    ///   Names and values must not contain CR or LF.
    /// - Throws: ``FetchError``; ``FetchError/invalidURL`` for a header with CR or LF.
    public func get(_ url: String, headers: [(String, String)]) async throws(FetchError) -> FetchResponse {
        for (name, value) in headers where (name + value).utf8.contains(where: { $0 == 13 || $0 == 10 }) {
            throw .invalidURL
        }
        let deadline = Deadline.after(configuration.totalTimeout)
        var sent = headers
        if !headers.contains(where: { $0.0.lowercased() == "accept" }) {
            sent.insert(("Accept", configuration.accept), at: 0)
        }
        return try await onIOThread { [self, sent] () throws(FetchError) in
            if deadline.hasPassed { throw .timedOut }
            let target = try FetchURL(parsing: url)
            let (head, reader) = try request(target, headers: sent, deadline: deadline)
            let body = try readBody(reader, deadline: deadline)
            return FetchResponse(status: head.status, head: head, body: body, url: target, redirects: 0)
        }
    }

    /// The addresses `url` may be reached at, all vetted; nothing is connected.
    /// - Throws: ``FetchError/notAllowed`` when any address is refused, or a resolution error.
    func vettedAddresses(for url: FetchURL, deadline: Deadline) throws(FetchError) -> [RemoteAddress] {
        try FetchError.mapping { () throws(SocketError) in
            try configuration.policy.vettedAddresses(
                of: url.host, hostText: url.hostText, resolver: resolver, deadline: deadline)
        }
    }

    /// Sends one POST to `url` on the fetcher's I/O threads and returns the response whatever its status. Its
    /// ``FetchConfiguration/totalTimeout`` runs from when a thread takes it, which must be within `startWithin` of
    /// the call (default 20 s), else it is not sent (``FetchError/timedOut``).
    ///
    /// Same address policy, timeouts, TLS checks and size limits as ``fetch(_:)``; redirects are not
    /// followed (the response is returned as is). For clients of JSON APIs (`postern agent`), where an
    /// error status carries a body worth reading.
    /// - Parameters:
    ///   - headers: extra request headers; names and values must not contain CR or LF.
    ///   - body: the request body, sent with `Content-Length`.
    ///   - readingBody: false to return after the response head, with an empty body (webhook deliveries, where
    ///     only the status counts and a receiver's large answer must not turn a 2xx into a failure).
    ///   - startWithin: how long it may wait for a thread before it is given up unsent.
    /// - Throws: ``FetchError``; ``FetchError/invalidURL`` for a header with CR or LF.
    public func post(
        _ url: String, headers: [(String, String)] = [], body: [UInt8] = [], readingBody: Bool = true,
        startWithin: Duration = .seconds(20)
    ) async throws(FetchError) -> FetchResponse {
        for (name, value) in headers where (name + value).utf8.contains(where: { $0 == 13 || $0 == 10 }) {
            throw .invalidURL
        }
        let latestStart = Deadline.after(startWithin)
        return try await onIOThread { [self] () throws(FetchError) in
            // Unlike a GET's, a POST's deadline starts when a thread takes it: webhook deliveries queue behind each
            // other, and one that waited for a slow receiver's deliveries must not fail unsent. It is not sent at
            // all past `startWithin`, so that a webhook's lease (30 s) outlives any delivery.
            if latestStart.hasPassed { throw .timedOut }
            let deadline = Deadline.after(configuration.totalTimeout)
            let target = try FetchURL(parsing: url)
            let (head, reader) = try request(target, method: "POST", headers: headers, body: body, deadline: deadline)
            let responseBody = readingBody ? try readBody(reader, deadline: deadline) : []
            return FetchResponse(status: head.status, head: head, body: responseBody, url: target, redirects: 0)
        }
    }

    /// Connects, sends the request and reads the head; the stream is positioned at the body.
    private func request(
        _ url: FetchURL, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil,
        deadline: Deadline
    ) throws(FetchError) -> (ResponseHead, BodyReader) {
        let addresses = try vettedAddresses(for: url, deadline: deadline)
        let stream: ByteStream = try FetchError.mapping { () throws(SocketError) in
            let (connection, _) = try TCPConnection.connect(
                toFirstOf: addresses, port: url.port, timeout: configuration.connectTimeout, deadline: deadline,
                attempted: { attempts.add(1, ordering: .relaxed) })
            guard url.isHTTPS else { return connection }
            return try TLSStream(context: tls, connection: connection, host: url.hostText, deadline: deadline)
        }
        var requestText =
            "\(method) \(url.target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: \(configuration.userAgent)\r\n"
        for (name, value) in headers { requestText += "\(name): \(value)\r\n" }
        if let body { requestText += "Content-Length: \(body.count)\r\n" }
        requestText += "Accept-Encoding: identity\r\nConnection: close\r\n\r\n"
        try FetchError.mapping { () throws(SocketError) in
            try stream.writeAll(Array(requestText.utf8) + (body ?? []), deadline: deadline)
        }
        var reader = BodyReader(
            stream: stream,
            parser: ResponseParser(
                maxHeaderBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxBodyBytes))
        let head = try reader.readHead(deadline: deadline)
        return (head, reader)
    }

    private func readBody(_ reader: BodyReader, deadline: Deadline) throws(FetchError) -> [UInt8] {
        var reader = reader
        return try reader.readBody(deadline: deadline)
    }
}

/// Drives a ``ResponseParser`` from a ``ByteStream``.
struct BodyReader {
    let stream: ByteStream
    var parser: ResponseParser

    mutating func readHead(deadline: Deadline) throws(FetchError) -> ResponseHead {
        while true {
            let bytes = try FetchError.mapping { () throws(SocketError) in
                try stream.read(maxBytes: 4096, deadline: deadline)
            }
            if bytes.isEmpty { throw .malformedResponse }
            switch try parser.parse(bytes) {
            case .needMoreData: continue
            case .head(let head): return head
            case .complete: throw .malformedResponse
            }
        }
    }

    mutating func readBody(deadline: Deadline) throws(FetchError) -> [UInt8] {
        var progress = try parser.parse([])
        while true {
            if case .complete(let body) = progress { return body }
            let bytes = try FetchError.mapping { () throws(SocketError) in
                try stream.read(maxBytes: 4096, deadline: deadline)
            }
            if bytes.isEmpty { return try parser.finish() }
            progress = try parser.parse(bytes)
        }
    }
}
