import Logging
import MailStore
import ServerTLS
import SocketServer
import Storage

/// The event loop's side of one mail connection, played by a test with no socket (IMAP's and POP3's TLS tests, in
/// IMAPServerTests and POP3ServerTests): the connection's machine, the jobs it asked for, what it would write, and a
/// TLS client over memory BIOs.
public struct MailTLSLoop<Request: Equatable> {
    public var machine: any ConnectionStateMachine
    public var jobs: [Request] = []
    public var closed = false
    public let database: TestDatabase
    /// The request a job of the machine's carries.
    public let request: (any AnyObject & Sendable) -> Request
    /// The loop's clock, monotonic nanoseconds, still for the test.
    public static var now: UInt64 { 1_000_000_000_000 }
    public var now: UInt64 { Self.now }

    /// A machine made over a fresh SQLite store by `make`, opened.
    public init(
        make: (MailStore) -> any ConnectionStateMachine,
        request: @escaping (any AnyObject & Sendable) -> Request
    ) throws {
        database = try StorageBackend.sqlite.makeDatabase(logger: Logger(label: "mail-tls-tests"))
        machine = make(MailStore(database: database.database))
        self.request = request
        send(.opened)
    }

    public mutating func send(_ event: ConnectionEvent) {
        var actions: [ConnectionAction] = []
        machine.handle(event, now: now, into: &actions)
        for action in actions {
            switch action {
            case .perform(let job): jobs.append(request(job))
            case .close: closed = true
            default: break
            }
        }
    }

    public mutating func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send(.bytesRead($0)) }
    }

    public mutating func receive(_ text: String) { receive(Array(text.utf8)) }

    /// Everything the socket would carry now.
    public mutating func written() -> [UInt8] {
        var all: [UInt8] = []
        while machine.hasUnsentOutput {
            let count = machine.withUnsentOutput { bytes in
                all += bytes
                return bytes.count
            }!
            send(.wrote(count))
        }
        return all
    }

    public mutating func writtenText() -> String { String(decoding: written(), as: UTF8.self) }

    /// Runs a handshake with a new client; returns it and the plaintext it read meanwhile.
    public mutating func handshake() -> (TLSTestClient, String) {
        let client = TLSTestClient()
        var text = client.receive([])
        for _ in 0..<10 where !client.isEstablished || text.isEmpty && jobs.isEmpty {
            receive(client.takeOutput())
            text += client.receive(written())
        }
        return (client, text)
    }

    /// Sends `line` through `client` and returns the plaintext of the answer.
    public mutating func exchange(_ client: TLSTestClient, _ line: String) -> String {
        client.send(line)
        receive(client.takeOutput())
        return client.receive(written())
    }
}
