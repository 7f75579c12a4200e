import ClientAddress

/// A connection from a trusted balancer that speaks the PROXY protocol (see ``ProxyHeader``): it reads the header the
/// balancer writes first, then hands the connection, from the client the header names, to the protocol's own machine,
/// which sees the connection open then and never sees the header. Until then nothing is written: SMTP's greeting waits
/// for the header, as with Postfix's `smtpd_upstream_proxy_protocol`.
///
/// A connection that sends anything but a header, sends none within `timeout`, or closes first is closed without a
/// word: it is the balancer misconfigured or something that is not the balancer.
struct ProxyProtocolMachine: ConnectionStateMachine {
    private let peer: String
    private let timeout: UInt64
    private let makeMachine: (String) -> any ConnectionStateMachine
    private var received: [UInt8] = []
    private var inner: (any ConnectionStateMachine)?
    private var closed = false

    /// - Parameters:
    ///   - peer: the socket's peer (the balancer), used when the header names no client (its health checks).
    ///   - timeout: how long the header may take, in nanoseconds.
    ///   - makeMachine: the protocol's machine for a connection from the given client address.
    init(peer: String, timeout: UInt64, makeMachine: @escaping (String) -> any ConnectionStateMachine) {
        self.peer = peer
        self.timeout = timeout
        self.makeMachine = makeMachine
    }

    var hasUnsentOutput: Bool { inner?.hasUnsentOutput ?? false }

    func withUnsentOutput(_ body: (UnsafeRawBufferPointer) throws -> Int?) rethrows -> Int? {
        try inner?.withUnsentOutput(body)
    }

    mutating func handle(_ event: ConnectionEvent, now: UInt64, into actions: inout [ConnectionAction]) {
        guard !closed else { return }
        if inner != nil { return inner!.handle(event, now: now, into: &actions) }
        switch event {
        case .opened:
            actions.append(.setInterest(read: true, write: false))
            actions.append(.armTimer(deadline: now &+ timeout))
        case .bytesRead(let bytes):
            received.append(contentsOf: bytes)
            switch ProxyHeader.parse(received) {
            case .incomplete:
                break
            case .invalid:
                close(into: &actions)
            case .complete(let client, let length):
                var machine = makeMachine(client.map(\.description) ?? peer)
                actions.append(.cancelTimer)
                machine.handle(.opened, now: now, into: &actions)
                let rest = received[length...]
                received = []
                if !rest.isEmpty {
                    Array(rest).withUnsafeBytes { machine.handle(.bytesRead($0), now: now, into: &actions) }
                }
                inner = machine
            }
        case .readEOF, .timerFired, .shutdown, .reset, .completed:
            close(into: &actions)
        case .wrote, .writeBlocked, .writable:
            break
        }
    }

    private mutating func close(into actions: inout [ConnectionAction]) {
        closed = true
        actions.append(.close)
    }
}
