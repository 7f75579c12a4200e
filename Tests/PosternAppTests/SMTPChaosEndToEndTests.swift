import Foundation
import Logging
import PosternTestSupport
import Testing

@testable import PosternApp
@testable import PosternOperations

/// SMTP failure injection end to end (issue 71 item 4): rules set through `/api/operator/chaos` and
/// `/api/user/sandbox/chaos`, mail sent with smtplib and swaks to the server's own listeners, what was stored read back.
@Suite("SMTP failure injection end to end, with smtplib and swaks", .timeLimit(.minutes(2)))
struct SMTPChaosEndToEndTests {
    static let auth = OperatorAPITests.auth

    static func start(_ backend: StorageBackend, chaos: Bool = true) async throws -> TestServer {
        try await TestServer.start(backend) {
            $0.recipients.acceptAny = true
            $0.mailbox.operatorToken = OperatorAPITests.token
            $0.smtp.chaos = chaos
        }
    }

    /// PUTs `body` to `path` with `headers` on a connection of its own; the answer.
    ///
    /// Each call connects anew because the SMTP runs between two calls take longer than the server's keep-alive idle
    /// timeout (`HTTPServerConfiguration.idleTimeout`, 30 s) on a busy machine: the server then rightly closes the
    /// idle connection, and a request sent on it afterwards reads `.closed` (seen at load 15-19 in `make test`).
    static func put(_ server: TestServer, _ path: String, _ body: String, _ headers: [(String, String)])
        async throws -> TestResponse
    {
        try await server.client().request(
            "PUT", path, headers: headers + [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    /// How many messages the store holds, anywhere.
    static func stored(_ server: TestServer) async throws -> Int {
        try await server.runtime.database.read { connection in
            Int(try connection.query("SELECT COUNT(*) AS n FROM mail_messages").first?.int("n") ?? -1)
        }
    }

    /// Sends `count` messages over one smtplib session to `port` (after STARTTLS and AUTH with `password` when
    /// given), each to `recipient`; one word a message: `ok`, the refusal's code, or `disconnected`.
    static func sendEach(port: Int, count: Int, recipient: String, password: String? = nil) async throws -> [String] {
        let script = """
            import smtplib, ssl, sys
            port, count, rcpt, password = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
            message = b"From: a@example.com\\r\\nTo: " + rcpt.encode() + b"\\r\\nSubject: chaos\\r\\n\\r\\nhello\\r\\n"
            words = []
            s = smtplib.SMTP("127.0.0.1", port, timeout=120)
            if password:
                s.starttls(context=ssl._create_unverified_context())
                s.login("any", password)
            for _ in range(count):
                try:
                    s.sendmail("app@example.com", [rcpt], message)
                    words.append("ok")
                except smtplib.SMTPRecipientsRefused as e:
                    words.append(str(list(e.recipients.values())[0][0]))
                    s.rset()
                except smtplib.SMTPDataError as e:
                    words.append(str(e.smtp_code))
                except smtplib.SMTPServerDisconnected:
                    words.append("disconnected")
                    s = smtplib.SMTP("127.0.0.1", port, timeout=120)
            print(" ".join(words))
            """
        let output = try await PythonScript.snippet(
            script, arguments: [String(port), String(count), recipient, password ?? ""], input: "")
        return output.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test(
        "rcpt 451 times 2: refused, refused, accepted, one message stored; after-data 452 (swaks) and a disconnect at DATA store nothing",
        arguments: StorageBackend.allCases)
    func greylistingAndNothingStored(_ backend: StorageBackend) async throws {
        let server = try await Self.start(backend)
        defer { Task { await server.stop() } }
        let port = try CatchAllTests.smtpPort(server)
        let set = try await Self.put(
            server, "/api/operator/chaos",
            #"{"seed":1,"rules":[{"stage":"rcpt","action":"reply","code":451,"enhanced_code":"4.7.1","text":"Greylisted","times":2}]}"#,
            Self.auth)
        #expect(set.status == 200)
        #expect(try set.json()["enabled"] as? Bool == true)
        #expect(try await Self.sendEach(port: port, count: 3, recipient: "grey@example.org") == ["451", "451", "ok"])
        #expect(try await Self.stored(server) == 1)
        let spent = try await server.client().request("GET", "/api/operator/chaos", headers: Self.auth).json()
        let rules = try #require(spent["rules"] as? [[String: Any]])
        #expect(rules.first?["remaining"] as? Int == 0)

        _ = try await Self.put(
            server, "/api/operator/chaos",
            #"{"rules":[{"stage":"after-data","action":"reply","code":452,"enhanced_code":"4.3.1","text":"Insufficient system storage"}]}"#,
            Self.auth)
        let swaks = try await PythonScript.snippet(
            """
            import subprocess, sys
            run = subprocess.run(["swaks", "--server", "127.0.0.1", "--port", sys.argv[1], "--from", "app@example.com",
                                  "--to", "full@example.org", "--body", "hello", "--timeout", "20"],
                                 capture_output=True, text=True)
            print(run.returncode, "452 4.3.1 Insufficient system storage" in run.stdout)
            """, arguments: [String(port)], input: "")
        #expect(swaks.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("True"), "\(swaks)")
        #expect(try await Self.stored(server) == 1)

        _ = try await Self.put(
            server, "/api/operator/chaos", #"{"rules":[{"stage":"data","action":"disconnect","times":1}]}"#, Self.auth)
        #expect(try await Self.sendEach(port: port, count: 2, recipient: "cut@example.org") == ["disconnected", "ok"])
        #expect(try await Self.stored(server) == 2)
        let client = try server.client()
        #expect(try await client.request("DELETE", "/api/operator/chaos", headers: Self.auth).status == 204)
        #expect(try await client.request("GET", "/api/operator/chaos").status == 401)
    }

    @Test("probability 25 with a seed over 2,000 recipients: the same refusals on two runs")
    func seededProbabilityRepeats() async throws {
        let server = try await Self.start(.sqlite)
        defer { Task { await server.stop() } }
        let port = try CatchAllTests.smtpPort(server)
        let rules = #"{"seed":2026,"rules":[{"stage":"rcpt","action":"reply","code":450,"probability":25}]}"#
        let script = """
            import smtplib, sys
            try:
                s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=120)
                s.ehlo()
                refused = []
                for batch in range(20):
                    s.mail("app@example.com")
                    for n in range(batch * 100, batch * 100 + 100):
                        code, _ = s.rcpt("r%d@example.org" % n)
                        if code != 250:
                            refused.append(str(n))
                    s.rset()
                s.quit()
                print(",".join(refused))
            except Exception as e:
                print("error", repr(e))
            """
        func run() async throws -> [String] {
            #expect(try await Self.put(server, "/api/operator/chaos", rules, Self.auth).status == 200)
            let output = try await PythonScript.snippet(script, arguments: [String(port)], input: "")
            return output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        }
        let first = try await run()
        #expect(first.filter { $0.hasPrefix("error") } == [])
        #expect(try await run() == first)
        #expect((400...600).contains(first.count), "\(first.count) of 2000 refused at 25%")
    }

    @Test("two Pro users' sandbox rules never fire for each other; a sandbox rule before AUTH is refused")
    func proUsersApart() async throws {
        let ann = try await SMTPSandboxTests.ProSandbox.start(.sqlite, email: "ann@example.com") { $0.smtp.chaos = true }
        let server = ann.server
        defer { Task { await server.stop() } }
        _ = try await Operations.createProUser(
            configuration: server.runtime.configuration, email: "bob@example.com", password: "pro-password",
            maxAccounts: 1, logger: Logger(label: "test"))
        let login = try await ann.client.json("POST", "/api/user/login", ["email": "bob@example.com", "password": "pro-password"])
        let bobJWT = try #require(try login.json()["token"] as? String)
        let bobAuth = [("Authorization", "Bearer \(bobJWT)")]
        let bobToken = try #require(
            try await ann.client.json("POST", "/api/user/tokens", ["name": "smtp"], headers: bobAuth).json()["token"]
                as? String)

        let annRules = #"{"rules":[{"stage":"rcpt","action":"reply","code":550,"enhanced_code":"5.7.1","text":"ann's fault"}]}"#
        #expect(try await Self.put(server, "/api/user/sandbox/chaos", annRules, ann.auth).status == 200)
        let bobRules = #"{"rules":[{"stage":"rcpt","rcpt_to":"*@refused-for-bob.test","action":"reply","code":550}]}"#
        #expect(try await Self.put(server, "/api/user/sandbox/chaos", bobRules, bobAuth).status == 200)
        let early = try await Self.put(
            server, "/api/user/sandbox/chaos", #"{"rules":[{"stage":"helo","action":"disconnect"}]}"#, bobAuth)
        #expect(early.status == 400)
        #expect(try early.json()["parameter"] as? String == "rules[0].stage")

        let annSent = try await Self.sendEach(port: ann.port, count: 200, recipient: "x@refused-for-bob.test", password: ann.token)
        let bobSent = try await Self.sendEach(port: ann.port, count: 200, recipient: "x@elsewhere.test", password: bobToken)
        #expect(annSent == Array(repeating: "550", count: 200))
        #expect(bobSent == Array(repeating: "ok", count: 200))
        #expect(try await Self.sendEach(port: ann.port, count: 1, recipient: "y@refused-for-bob.test", password: bobToken) == ["550"])
        #expect(try await Self.stored(server) == 200)
        // Neither sees the other's rules, nor the operator's route without the operator token.
        let annView = try await server.client().request("GET", "/api/user/sandbox/chaos", headers: ann.auth).json()
        #expect((annView["rules"] as? [[String: Any]])?.first?["text"] as? String == "ann's fault")
    }

    @Test("with POSTERN_SMTP_CHAOS off, GET says so and PUT is 409 chaos_disabled; a bad rule is 400 naming it")
    func offAndInvalid() async throws {
        let off = try await Self.start(.sqlite, chaos: false)
        let client = try off.client()
        #expect(try await client.request("GET", "/api/operator/chaos", headers: Self.auth).json()["enabled"] as? Bool == false)
        let refused = try await Self.put(off, "/api/operator/chaos", #"{"rules":[]}"#, Self.auth)
        #expect(refused.status == 409)
        #expect(try refused.json()["error"] as? String == "chaos_disabled")
        await off.stop()

        let on = try await Self.start(.sqlite)
        defer { Task { await on.stop() } }
        let bad = try await Self.put(
            on, "/api/operator/chaos", #"{"rules":[{"stage":"rcpt","action":"reply","code":250}]}"#,
            Self.auth)
        #expect(bad.status == 400)
        #expect(try bad.json()["parameter"] as? String == "rules[0].code")
        #expect(try bad.json()["error"] as? String == "invalid_request")
    }
}
