import Synchronization
import Testing

@testable import MailpitAPI

/// `GET`/`PUT /api/v1/chaos` as Mailpit's `chaos.go` answers them, over the port the composition root fills with the
/// failure-injection engine (here a table of what each scope was given): the operator sets the server's triggers, a
/// Pro user their sandbox's, each reads back its own.
@Suite("Mailpit API: chaos triggers")
struct MailpitChaosTests {
    /// The triggers each scope was given, as the engine keeps them.
    final class ChaosTable: MailpitChaosRules {
        let given = Mutex<[String: MailpitChaosTriggers]>([:])

        static func key(_ scope: MailpitChaosScope) -> String {
            switch scope {
            case .server: "server"
            case .user(let owner): "user:" + owner
            }
        }

        func triggers(for scope: MailpitChaosScope) -> MailpitChaosTriggers {
            given.withLock { $0[Self.key(scope)] } ?? .off
        }

        func set(_ triggers: MailpitChaosTriggers, for scope: MailpitChaosScope) {
            given.withLock { $0[Self.key(scope)] = triggers }
        }
    }

    static let sandbox = MailpitSandbox(address: "sandbox-ann@sandbox.localhost", owner: "pro-ann")

    @Test("PUT sets the triggers (omitted ones off, a code of 0 its default, names in any case) and GET reads them")
    func setAndRead() async throws {
        let table = ChaosTable()
        let harness = try MailpitHarness(.sqlite, sandboxes: ["ann-token": Self.sandbox], chaos: table)
        let off = try await harness.call("GET", "/api/v1/chaos").json()
        #expect(off["Sender"] as? [String: Int] == ["ErrorCode": 451, "Probability": 0])
        #expect(off["Authentication"] as? [String: Int] == ["ErrorCode": 535, "Probability": 0])

        let set = try await harness.call(
            "PUT", "/api/v1/chaos",
            json: ["recipient": ["errorcode": 452, "Probability": 100], "Sender": ["ErrorCode": 0, "Probability": 5]])
        #expect(set.status == 200)
        let answered = try set.json()
        #expect(answered["Recipient"] as? [String: Int] == ["ErrorCode": 452, "Probability": 100])
        #expect(answered["Sender"] as? [String: Int] == ["ErrorCode": 451, "Probability": 5])
        #expect(answered["Authentication"] as? [String: Int] == ["ErrorCode": 535, "Probability": 0])
        #expect(
            table.triggers(for: .server).recipient == MailpitChaosTrigger(errorCode: 452, probability: 100))
        #expect(table.triggers(for: .user("pro-ann")) == .off, "the operator's triggers are the server's alone")

        let mine = try await harness.call(
            "PUT", "/api/v1/chaos", token: "ann-token", json: ["Authentication": ["ErrorCode": 535, "Probability": 50]])
        #expect(mine.status == 200)
        #expect(table.triggers(for: .user("pro-ann")).authentication.probability == 50)
        #expect(table.triggers(for: .server).recipient.probability == 100, "a Pro user's leave the server's alone")
        let read = try await harness.call("GET", "/api/v1/chaos", token: "ann-token").json()
        #expect(read["Authentication"] as? [String: Int] == ["ErrorCode": 535, "Probability": 50])

        #expect(try await harness.call("PUT", "/api/v1/chaos", json: [String: Any]()).status == 200)
        #expect(table.triggers(for: .server) == .off, "{} resets every trigger")
        #expect(try await harness.call("GET", "/api/v1/webui").json()["ChaosEnabled"] as? Bool == true)
    }

    @Test("a code outside 400-599, a probability outside 0-100, a wrong type or no body: 400 in Mailpit's words")
    func refusals() async throws {
        let table = ChaosTable()
        let harness = try MailpitHarness(.sqlite, chaos: table)
        let code = try await harness.call("PUT", "/api/v1/chaos", json: ["Sender": ["ErrorCode": 250, "Probability": 1]])
        #expect(code.status == 400)
        #expect(code.text == "error code must be between 400 and 599")
        let chance = try await harness.call(
            "PUT", "/api/v1/chaos", json: ["Recipient": ["ErrorCode": 451, "Probability": 101]])
        #expect(chance.status == 400)
        #expect(chance.text == "probability must be between 0 and 100")
        let type = try await harness.call("PUT", "/api/v1/chaos", json: ["Sender": ["Probability": "high"]])
        #expect(type.status == 400)
        #expect(type.text == "Sender.Probability must be a whole number")
        #expect(try await harness.call("PUT", "/api/v1/chaos", json: ["Sender": 5]).status == 400)
        #expect(try await harness.call("PUT", "/api/v1/chaos", body: Array("[1]".utf8)).status == 400)
        #expect(try await harness.call("PUT", "/api/v1/chaos").status == 400)
        #expect(table.triggers(for: .server) == .off, "nothing refused was set")
        #expect(try await harness.call("PUT", "/api/v1/chaos", token: "wrong", json: [String: Any]()).status == 401)
    }

    @Test("with failure injection off: 400 Chaos is not enabled, as Mailpit without --enable-chaos")
    func off() async throws {
        let harness = try MailpitHarness(.sqlite)
        let read = try await harness.call("GET", "/api/v1/chaos")
        #expect(read.status == 400)
        #expect(read.text == "Chaos is not enabled")
        let set = try await harness.call("PUT", "/api/v1/chaos", json: ["Sender": ["ErrorCode": 451, "Probability": 1]])
        #expect(set.status == 400)
        #expect(set.text == "Chaos is not enabled")
        #expect(try await harness.call("GET", "/api/v1/webui").json()["ChaosEnabled"] as? Bool == false)
    }
}
