import Logging
import MailStore
import PosternTestSupport
import ServerTLS
import SocketServer
import Storage

/// The event loop's side of one mail connection, played by a test with no socket (IMAP's and POP3's TLS tests): the
/// connection's machine, the jobs it asked for, what it would write, and a TLS client over memory BIOs.
struct MailTLSLoop<Request: Equatable> {
    var machine: any ConnectionStateMachine
    var jobs: [Request] = []
    var closed = false
    let database: TestDatabase
    /// The request a job of the machine's carries.
    let request: (any AnyObject & Sendable) -> Request
    /// The loop's clock, monotonic nanoseconds, still for the test.
    static var now: UInt64 { 1_000_000_000_000 }
    var now: UInt64 { Self.now }

    /// A machine made over a fresh SQLite store by `make`, opened.
    init(
        make: (MailStore) -> any ConnectionStateMachine,
        request: @escaping (any AnyObject & Sendable) -> Request
    ) throws {
        database = try StorageBackend.sqlite.makeDatabase(logger: Logger(label: "mail-tls-tests"))
        machine = make(MailStore(database: database.database))
        self.request = request
        send(.opened)
    }

    mutating func send(_ event: ConnectionEvent) {
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

    mutating func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { send(.bytesRead($0)) }
    }

    mutating func receive(_ text: String) { receive(Array(text.utf8)) }

    /// Everything the socket would carry now.
    mutating func written() -> [UInt8] {
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

    mutating func writtenText() -> String { String(decoding: written(), as: UTF8.self) }

    /// Runs a handshake with a new client; returns it and the plaintext it read meanwhile.
    mutating func handshake() -> (TLSTestClient, String) {
        let client = TLSTestClient()
        var text = client.receive([])
        for _ in 0..<10 where !client.isEstablished || text.isEmpty && jobs.isEmpty {
            receive(client.takeOutput())
            text += client.receive(written())
        }
        return (client, text)
    }

    /// Sends `line` through `client` and returns the plaintext of the answer.
    mutating func exchange(_ client: TLSTestClient, _ line: String) -> String {
        client.send(line)
        receive(client.takeOutput())
        return client.receive(written())
    }
}
