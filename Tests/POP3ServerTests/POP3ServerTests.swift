import ClientAddress
import Foundation
import Glibc
import Logging
import MailDoorServer
import MailStore
import POP3
import PosternTestSupport
import SocketServer
import Testing

@testable import POP3Server

/// The drain flag a runtime sets before it stops.
final class DrainSwitch: @unchecked Sendable {
    // @unchecked: `on` is only touched under `lock`.
    private let lock = NSLock()
    private var on = false

    var isOn: Bool { lock.withLock { on } }
    func turnOn() { lock.withLock { on = true } }
}

/// One POP3 connection over loopback: lines out, the server's bytes in.
struct POP3Line {
    let fd: Int32
    var received: [UInt8] = []

    init(port: Int, from source: String? = nil) throws {
        fd = try LoopbackSocket.connect(port: port, timeout: 30, from: source)
    }

    /// Reads until the received text ends with `suffix` (or the server closes); returns all of it and forgets it.
    mutating func read(until suffix: String) throws -> String {
        while !String(decoding: received, as: UTF8.self).hasSuffix(suffix) {
            guard try LoopbackSocket.receive(fd, into: &received) else { break }
        }
        defer { received = [] }
        return String(decoding: received, as: UTF8.self)
    }

    mutating func ask(_ line: String, until suffix: String = "\r\n") throws -> String {
        try LoopbackSocket.sendAll(fd, Array((line + "\r\n").utf8))
        return try read(until: suffix)
    }

    func close() { Glibc.close(fd) }
}

/// POP3 served (issue 70): the listener, the connection machine it shares with IMAP and the driver over a real store,
/// where the pure `POP3Session` tests cannot reach: DELE committed to the store at QUIT and only then, the PROXY header's
/// client reaching the sign-in, the per-client cap, the drain and the shutdown's goodbye.
@Suite("POP3 server over loopback", .serialized, .timeLimit(.minutes(2)))
struct POP3ServerTests {
    static let address = MailDoorHolder.address
    static let password = MailDoorHolder.password
    static let token = MailDoorHolder.token
    static let sendOnlyToken = MailDoorHolder.sendOnlyToken

    struct Served {
        let group: EventLoopGroup
        let server: POP3Server
        let port: Int
        let store: MailStore
        let signIn: OneHolderSignIn
        let database: TestDatabase?

        func stop() async {
            await server.shutdown()
            await group.shutdownJoining()
        }
    }

    static func serve(
        _ backend: StorageBackend = .sqlite, draining: @escaping @Sendable () -> Bool = { false },
        configure: (inout POP3ServerConfiguration) -> Void = { _ in }
    ) async throws -> Served {
        let database = try backend.makeDatabase()
        let store = MailStore(database: database.database)
        let group = try EventLoopGroup(count: 1, pollInterval: .milliseconds(20))
        group.startOnce()
        var configuration = POP3ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.wallClock = { 1_700_000_000 }
        configure(&configuration)
        let signIn = OneHolderSignIn()
        let server = POP3Server(
            configuration: configuration, store: store, signIn: signIn, group: group,
            logger: Logger(label: "test.pop3"), draining: draining)
        let port = try server.start()
        return Served(group: group, server: server, port: port, store: store, signIn: signIn, database: database)
    }

    @Test("DELE then QUIT deletes through the store; DELE then a dropped connection deletes nothing", arguments: StorageBackend.allCases)
    func deletionsAtQuit(_ backend: StorageBackend) async throws {
        let served = try await Self.serve(backend)
        let ids = try await MailDoorHolder.deliver(served.store, ["one", "two", "three"])
        let port = served.port
        let dropped = try await blocking {
            var line = try POP3Line(port: port)
            defer { line.close() }
            _ = try line.read(until: "\r\n")
            _ = try line.ask("USER \(Self.address)")
            _ = try line.ask("PASS \(Self.password)")
            return try line.ask("DELE 2")
        }
        #expect(dropped == "+OK Message 2 deleted\r\n")
        let afterDrop = try await served.store.uidSnapshot(address: Self.address, folder: .inbox, now: 0).entries
        #expect(afterDrop.map(\.id) == ids, "a session that ends without QUIT removes nothing")
        let answers = try await blocking {
            var line = try POP3Line(port: port)
            defer { line.close() }
            _ = try line.read(until: "\r\n")
            _ = try line.ask("USER \(Self.address)")
            let signedIn = try line.ask("PASS \(Self.password)")
            let uidl = try line.ask("UIDL", until: "\r\n.\r\n")
            _ = try line.ask("DELE 2")
            return [signedIn, uidl, try line.ask("QUIT")]
        }
        #expect(answers[0].hasPrefix("+OK Maildrop has 3 messages"))
        let validity = try await served.store.uidSnapshot(address: Self.address, folder: .inbox, now: 0).mailbox
            .uidValidity
        #expect(answers[1] == "+OK Unique-ID listing follows\r\n1 \(validity).1\r\n2 \(validity).2\r\n3 \(validity).3\r\n.\r\n")
        #expect(answers[2] == "+OK Postern POP3 signing off (1 messages deleted)\r\n")
        let left = try await served.store.uidSnapshot(address: Self.address, folder: .inbox, now: 0).entries
        #expect(left.map(\.id) == [ids[0], ids[2]], "the second message is gone for every door")
        await served.stop()
    }

    @Test("AUTH OAUTHBEARER and XOAUTH2 in CAPA, signed in by the port's token check; a refused token: error JSON, -ERR")
    func oauth() async throws {
        let served = try await Self.serve()
        _ = try await MailDoorHolder.deliver(served.store, ["one", "two"])
        let port = served.port
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        let bearer = base64("n,a=\(Self.address),\u{1}auth=Bearer \(Self.token)\u{1}\u{1}")
        let xoauth2 = base64("user=\(Self.address)\u{1}auth=Bearer \(Self.token)\u{1}\u{1}")
        let sendOnly = base64("n,,\u{1}auth=Bearer \(Self.sendOnlyToken)\u{1}\u{1}")
        let forged = base64("n,,\u{1}auth=Bearer \(Self.token)x\u{1}\u{1}")
        let answers = try await blocking {
            var answers: [String] = []
            var line = try POP3Line(port: port)
            _ = try line.read(until: "\r\n")
            answers.append(try line.ask("CAPA", until: "\r\n.\r\n"))
            answers.append(try line.ask("AUTH OAUTHBEARER \(bearer)"))
            answers.append(try line.ask("STAT"))
            line.close()
            line = try POP3Line(port: port)
            _ = try line.read(until: "\r\n")
            answers.append(try line.ask("AUTH XOAUTH2"))
            answers.append(try line.ask(xoauth2))
            line.close()
            line = try POP3Line(port: port)
            defer { line.close() }
            _ = try line.read(until: "\r\n")
            for refused in [sendOnly, forged] {
                answers.append(try line.ask("AUTH OAUTHBEARER \(refused)"))
                answers.append(try line.ask("AQ=="))
            }
            return answers
        }
        #expect(answers[0].contains("\r\nSASL PLAIN LOGIN OAUTHBEARER XOAUTH2\r\n"), "CAPA: \(answers[0])")
        #expect(answers[1].hasPrefix("+OK Maildrop has 2 messages ("), "an initial response past 510 bytes")
        #expect(answers[2].hasPrefix("+OK 2 "))
        #expect(answers[3] == "+ \r\n" && answers[4] == answers[1], "XOAUTH2 after an empty challenge")
        func error(_ status: String) -> String {
            "+ " + base64(#"{"status":"\#(status)","scope":"mail.read"}"#) + "\r\n"
        }
        #expect(answers[5] == error("insufficient_scope") && answers[7] == error("invalid_token"))
        #expect(answers[6] == "-ERR [AUTH] Authentication failed\r\n" && answers[8] == answers[6])
        #expect(served.signIn.clients.count == 4, "every token went to the one sign-in port")
        await served.stop()
    }

    @Test("a PROXY header from a trusted balancer names the client: the sign-in sees it, and so does the plaintext rule")
    func proxyHeader() async throws {
        let served = try await Self.serve(configure: { $0.proxyProtocolPeers = [IPNetwork("127.0.0.1/32")!] })
        let port = served.port
        let answers = try await blocking {
            var answers: [String] = []
            for client in ["127.0.0.9", "192.0.2.7"] {
                var line = try POP3Line(port: port)
                defer { line.close() }
                try LoopbackSocket.sendAll(line.fd, Array("PROXY TCP4 \(client) 127.0.0.1 40000 1110\r\n".utf8))
                _ = try line.read(until: "\r\n")
                _ = try line.ask("USER \(Self.address)")
                answers.append(try line.ask("PASS wrong"))
            }
            return answers
        }
        #expect(answers == ["-ERR [AUTH] Authentication failed\r\n", "-ERR Sign in only after STLS\r\n"])
        #expect(served.signIn.clients == ["127.0.0.9"], "a loopback client by the header signs in; another may not")
        await served.stop()
    }

    @Test("over the per-client cap, while draining, and at shutdown: -ERR [SYS/TEMP] with a reason, then close")
    func refusals() async throws {
        let draining = DrainSwitch()
        let served = try await Self.serve(draining: { draining.isOn }) { $0.maxConnectionsPerClient = 1 }
        let port = served.port
        let (first, capped) = try await blocking {
            var first = try POP3Line(port: port)
            let greeting = try first.read(until: "\r\n")
            var second = try POP3Line(port: port)
            defer { second.close() }
            return ((first, greeting), try second.read(until: "later\r\n"))
        }
        #expect(first.1 == "+OK Postern POP3 ready\r\n")
        #expect(capped == "-ERR [SYS/TEMP] Too many connections, try later\r\n")
        draining.turnOn()
        let held = first.0
        let drained = try await blocking {
            var third = try POP3Line(port: port, from: "127.0.0.2")
            defer { third.close() }
            return try third.read(until: "down\r\n")
        }
        #expect(drained == "-ERR [SYS/TEMP] Server shutting down\r\n")
        await served.server.shutdown()
        let goodbye = try await blocking {
            var line = held
            return try line.read(until: "down\r\n")
        }
        #expect(goodbye == "-ERR [SYS/TEMP] Server shutting down\r\n")
        held.close()
        await served.group.shutdownJoining()
    }
}
