import Directory
import PosternTestSupport
import Testing
import WebSocket

@testable import MailCX
@testable import MailboxAccounts

/// Issue 81 item 13: an open mailbox (mail.cx's implicit one) is read by whoever knows its address, so its 3 sockets
/// are counted per address and client: a client holding 3 on an address keeps nobody else from it.
@Suite("mail.cx sockets: an open mailbox's places are counted per client too", .timeLimit(.minutes(2)))
struct MailboxSocketClientShareTests {
    /// mail.cx's implicit mailboxes on `open.localhost`, as `MailCXDirectory` serves them.
    struct OpenMailboxes: AccountDirectory {
        func serves(domain: String) -> Bool { domain == "open.localhost" }
        func resolve(_ address: String) async throws -> AddressResolution {
            guard address.lowercased().hasSuffix("@open.localhost") else { return .foreign }
            return .local(Recipient(address: address, quota: 1 << 20))
        }
    }

    /// A socket from `client` following `address`: what it was answered first.
    static func open(
        _ address: String, from client: String, on harness: MailboxHarness
    ) async throws -> (peer: WebSocketTestPeer, first: WebSocketMessage?) {
        let peer = WebSocketTestPeer { inbound, outbound in
            await MailCXSocketSession(harness.socketController, outbound: outbound, client: client).run(inbound)
        }
        peer.receive(#"{"type":"auth","address":"\#(address)"}"#)
        return (peer, try await peer.nextMessage())
    }

    @Test(
        "one client holding an open address's 3 sockets is refused a fourth; another client still follows it",
        arguments: StorageBackend.allCases)
    func perClient(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend) { $0.openMailboxes = OpenMailboxes() }
        let address = "victim@open.localhost"
        let authOK = WebSocketMessage.text(#"{"type":"auth_ok"}"#)
        var held: [WebSocketTestPeer] = []
        for _ in 0..<3 {
            let (peer, first) = try await Self.open(address, from: "192.0.2.7", on: harness)
            #expect(first == authOK)
            held.append(peer)
        }
        let (fourth, refused) = try await Self.open(address, from: "192.0.2.7", on: harness)
        #expect(refused == .text(#"{"error":"too_many_connections"}"#))
        try await fourth.waitForClose()
        let (owner, first) = try await Self.open(address, from: "198.51.100.4", on: harness)
        #expect(first == authOK, "the address's own reader is not locked out by another client")
        #expect(!owner.isClosed)
        for peer in held + [owner] {
            peer.clientCloses()
            await peer.handlerEnded()
        }
        await fourth.handlerEnded()
    }

    @Test(
        "a Mail.td account's sockets stay 3 in all: its token is its own, whoever holds it",
        arguments: StorageBackend.allCases)
    func accountStaysPerAccount(_ backend: StorageBackend) async throws {
        let harness = try MailboxHarness(backend)
        let account = try await harness.createAccount("sockets@mail.localhost")
        var held: [WebSocketTestPeer] = []
        for index in 0..<4 {
            let peer = WebSocketTestPeer { inbound, outbound in
                await MailCXSocketSession(harness.socketController, outbound: outbound, client: "192.0.2.\(index)")
                    .run(inbound)
            }
            peer.receive(#"{"type":"auth","token":"\#(account.token)"}"#)
            let first = try await peer.nextMessage()
            #expect(first == .text(index < 3 ? #"{"type":"auth_ok"}"# : #"{"error":"too_many_connections"}"#))
            held.append(peer)
        }
        for peer in held {
            peer.clientCloses()
            await peer.handlerEnded()
        }
    }
}

extension MailboxHarness {
    /// mail.cx's `/api/ws` over the harness's accounts and mail store, as the composition root mounts it.
    var socketController: MailCXSocketController {
        MailCXSocketController(accounts: service.accounts, mail: service.mail, clock: service.clock)
    }
}
