import Foundation
import Logging
import PosternApp
import PosternOperations
import PosternTestSupport
import Testing

/// `postern dkim show` and `postern dkim rotate` through the operations they call, on the test storage backend.
@Suite("DKIM commands")
struct DKIMOperationsTests {
    let logger = Logger(label: "postern.tests.dkim")

    @Test(
        "dkim show prints each key's TXT name and value, the same twice; dkim rotate prints new ones show then gives",
        arguments: StorageBackend.allCases)
    func showAndRotate(_ backend: StorageBackend) async throws {
        let configuration = TestServer.configuration(backend)
        defer { try? FileManager.default.removeItem(atPath: configuration.storage.dataDirectory) }
        let shown = try Operations.showDKIM(configuration: configuration, domain: "Agents.Example", logger: logger)
        #expect(shown.count == 4)
        #expect(shown[0].hasPrefix("rsa-") && shown[0].hasSuffix("._domainkey.agents.example"))
        #expect(shown[1].hasPrefix("v=DKIM1; k=rsa; p="))
        #expect(shown[2].hasPrefix("ed25519-") && shown[2].hasSuffix("._domainkey.agents.example"))
        #expect(shown[3].hasPrefix("v=DKIM1; k=ed25519; p="))
        #expect(try Operations.showDKIM(configuration: configuration, domain: "agents.example", logger: logger) == shown)

        let rotated = try Operations.rotateDKIM(configuration: configuration, domain: "agents.example", logger: logger)
        #expect(rotated.count == 5)
        #expect(rotated[0].hasPrefix("retired ") && rotated[0].contains(shown[0].prefix { $0 != "." }))
        #expect(Set(rotated.dropFirst()).isDisjoint(with: shown))
        #expect(try Operations.showDKIM(configuration: configuration, domain: "agents.example", logger: logger)
            == Array(rotated.dropFirst()))
        #expect(throws: (any Error).self) {
            try Operations.showDKIM(configuration: configuration, domain: "not a domain", logger: logger)
        }
        // The rotation is on the audit trail, with the domain and the selectors (never a key); show is not.
        let audit = try await Operations.auditLines(
            configuration: configuration, since: nil, ownerEmail: nil, limit: 100, logger: logger)
        #expect(audit.count == 1, "\(audit)")
        let line = try #require(audit.first)
        #expect(line.contains("operator.command  operator operator  dkim rotate"))
        #expect(line.contains(#""domain":"agents.example""#))
        #expect(line.contains(String(rotated[1].prefix { $0 != "." })) && !line.contains("p="))
    }
}
