import BrowserPages
import ClientAddress
import HTTP1
import PosternTestSupport
import Synchronization
import Testing
import WebInbox

/// The web inbox over a fake sign-in port: what it asks the Mail.td side, and how often. Who may read is decided once
/// per request (one ``WebInboxSignIn/access(_:resting:)``), and a binding the port no longer holds ends the session.
@Suite("Web inbox: the sign-in port", .serialized)
struct WebInboxSignInPortTests {
    /// One account, `ada@mail.localhost` with password `secret-one`, whose token epoch a test moves on.
    final class FakeSignIn: WebInboxSignIn {
        static let address = "ada@mail.localhost", id = "account-1", password = "secret-one"
        private let state = Mutex((epoch: Int64(1), accessCalls: 0))

        var accessCalls: Int { state.withLock { $0.accessCalls } }
        /// What a password reset does: every session resting on the old epoch ends.
        func moveEpochOn() { state.withLock { $0.epoch += 1 } }

        func signIn(_ credentials: WebInboxCredentials) async throws
            -> (principal: WebInboxPrincipal, binding: WebInboxSessionBinding)?
        {
            guard credentials == .account(address: Self.address, password: Self.password) else { return nil }
            return (.account(id: Self.id), .tokenEpoch(state.withLock { $0.epoch }))
        }

        // The fake knows no Pro user: none has a password to remove.
        func proUserHasPassword(_ id: String) async throws -> Bool { false }

        func removeProUserPassword(_ id: String, password: String) async throws -> Bool { false }

        // One counter per name, as the credentials' owner keys it (the namespace is the fake's own).
        func backoffKeys(_ name: WebInboxSignInName, client: ClientAddressKey) -> SignInThrottle.Keys {
            SignInThrottle.keys(name: "\(name)", client: client, namespace: "fake")
        }

        func linkBinding(address: String) async throws -> WebInboxSessionBinding? {
            address == Self.address ? .account(id: Self.id) : nil
        }

        func access(_ principal: WebInboxPrincipal, resting binding: WebInboxSessionBinding) async throws
            -> WebInboxAccess?
        {
            let epoch = state.withLock { state in
                state.accessCalls += 1
                return state.epoch
            }
            switch (principal, binding) {
            case (.account(Self.id), .tokenEpoch(epoch)), (.link(Self.address), .account(Self.id)):
                return WebInboxAccess(label: Self.address, mailboxes: [Self.address])
            default:
                return nil
            }
        }
    }

    static let list = "/inbox/m/ada%40mail.localhost"

    @Test("a list page asks the port once who may read; a password reset ends the session", arguments: StorageBackend.allCases)
    func decidedOnce(backend: StorageBackend) async throws {
        let port = FakeSignIn()
        let harness = try WebInboxHarness(backend, signIns: port)
        try await harness.deliver(WebInboxHarness.plain(subject: "Hello Ada"), to: FakeSignIn.address)
        let browser = harness.browser()
        let refused = try await browser.signIn(
            ["kind": "account", "address": FakeSignIn.address, "password": "not-it"])
        #expect(refused.status == .unauthorized)
        let signedIn = try await browser.signIn(
            ["kind": "account", "address": FakeSignIn.address, "password": FakeSignIn.password])
        #expect(signedIn.status == .seeOther)

        let before = port.accessCalls
        let page = await browser.send(.GET, Self.list)
        #expect(page.status == .ok)
        #expect(page.text.contains("Hello Ada"))
        #expect(port.accessCalls == before + 1)
        #expect(await browser.send(.GET, "/inbox/m/someone-else%40mail.localhost").status == .notFound)

        port.moveEpochOn()
        let after = await browser.send(.GET, Self.list)
        #expect(after.status == .seeOther && after.headers["Location"] == "/inbox/sign-in")
    }

    @Test("a one-time link rests on what the port says of its address", arguments: StorageBackend.allCases)
    func link(backend: StorageBackend) async throws {
        let port = FakeSignIn()
        let harness = try WebInboxHarness(backend, signIns: port)
        let browser = harness.browser()
        for (address, status) in [("nobody@mail.localhost", HTTPStatus.notFound), (FakeSignIn.address, .seeOther)] {
            let link = try await harness.service.sessions.makeLink(address: address, lifetime: 600)
            let csrf = try #require(Browser.csrf(in: await browser.send(.GET, "/inbox/link/" + link)))
            #expect(await browser.send(.POST, "/inbox/link", form: ["token": link, "csrf_token": csrf]).status == status)
        }
        #expect(await browser.send(.GET, Self.list).status == .ok)
    }
}
