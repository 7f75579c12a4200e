import CustomDomains
import DNS
import PosternTestSupport
import Storage
import Synchronization
import Testing

/// One table of claims for owners and Mail.td Pro users, on each backend (`StorageBackend.allCases`).
@Suite("Custom domains: one model of claims for every surface")
struct CustomDomainsTests {
    static let txt: UInt16 = 16
    static let ada = DomainHolder.owner("o-ada")
    static let bob = DomainHolder.owner("o-bob")
    static let pro = DomainHolder.proUser("u-pro")

    /// A migrated database of `backend` with two owners and one Pro user.
    static func database(_ backend: StorageBackend) throws -> TestDatabase {
        try backend.makeDatabaseWithHolders()
    }

    static func resolver(_ server: LoopbackDNSServer) -> DNSResolver {
        DNSResolver(server: DNSServerAddress(server.address)!, timeout: .milliseconds(300))
    }

    @Test(
        "only the claim's own TXT token verifies; an MX naming this server and another claim's token do not",
        arguments: StorageBackend.allCases)
    func ownTokenOnly(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        zone.set("x.example", 15, .mx([.init(10, "mx.postern.test")]))
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let test = try Self.database(backend)
        let domains = CustomDomains(database: test.database)
        let mine = try await domains.add("X.Example.", for: Self.ada, limit: 5, served: [], now: 100)
        let theirs = try await domains.add("x.example", for: Self.pro, limit: 5, served: [], now: 100)
        #expect(mine.domain == "x.example" && mine.verifyToken != theirs.verifyToken)
        zone.set("x.example", Self.txt, .txt([theirs.verifyToken]))
        let checked = try #require(
            try await domains.verify(
                id: mine.id, of: Self.ada, now: 200, resolver: Self.resolver(server), mxHost: "mx.postern.test"))
        #expect(checked.check.mxFound && !checked.check.txtFound)
        #expect(!checked.claim.isVerified && checked.claim.mxConfigured)
        #expect(try await domains.verifiedClaim(on: "x.example") == nil)
        #expect(
            try await domains.verify(
                id: mine.id, of: Self.pro, now: 200, resolver: Self.resolver(server), mxHost: "mx.postern.test") == nil,
            "another holder's claim id finds nothing")
    }

    @Test(
        "a domain one surface holds verified is taken for the other; verifying drops every pending claim on it",
        arguments: StorageBackend.allCases)
    func oneHolderAcrossSurfaces(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let test = try Self.database(backend)
        let domains = CustomDomains(database: test.database)
        let owners = try await domains.add("shared.example", for: Self.bob, limit: 5, served: [], now: 100)
        let pros = try await domains.add("shared.example", for: Self.pro, limit: 5, served: [], now: 100)
        zone.set("shared.example", Self.txt, .txt([pros.verifyToken]))
        let won = try #require(
            try await domains.verify(
                id: pros.id, of: Self.pro, now: 300, resolver: Self.resolver(server), mxHost: "mx.postern.test"))
        #expect(won.claim.verifiedAt == 300)
        #expect(try await domains.verifiedClaim(on: "SHARED.example")?.holder == Self.pro)
        #expect(try await domains.claims(of: Self.bob, now: 300).isEmpty, "the owner's pending claim is gone")
        #expect(try await domains.claim(id: owners.id, of: Self.bob) == nil)
        await #expect(throws: DomainClaimError.taken) {
            try await domains.add("shared.example", for: Self.ada, limit: 5, served: [], now: 400)
        }
        await #expect(throws: DomainClaimError.taken) {
            try await domains.add("shared.example", for: Self.pro, limit: 5, served: [], now: 400)
        }
        await #expect(throws: DomainClaimError.taken) {
            try await domains.add("served.example", for: Self.ada, limit: 5, served: ["served.example"], now: 400)
        }
        await #expect(throws: DomainClaimError.invalidDomain) {
            try await domains.add("localhost", for: Self.ada, limit: 5, served: [], now: 400)
        }
        _ = try await domains.add("one.example", for: Self.ada, limit: 1, served: [], now: 400)
        await #expect(throws: DomainClaimError.limitReached) {
            try await domains.add("two.example", for: Self.ada, limit: 1, served: [], now: 400)
        }
    }

    @Test(
        "an owner and a Pro user verifying one domain at once: exactly one holds it, the other is taken or gone",
        arguments: StorageBackend.allCases)
    func racingVerifies(_ backend: StorageBackend) async throws {
        let zone = LoopbackDNSServer.Zone()
        let server = LoopbackDNSServer(zone: zone.answer)
        defer { server.stop() }
        let test = try Self.database(backend)
        let domains = CustomDomains(database: test.database)
        let other = CustomDomains(database: try test.another())
        for round in 0..<8 {
            let name = "race\(round).example"
            let owners = try await domains.add(name, for: Self.ada, limit: 50, served: [], now: 100)
            let pros = try await domains.add(name, for: Self.pro, limit: 50, served: [], now: 100)
            zone.set(name, Self.txt, .txt([owners.verifyToken, pros.verifyToken]))
            let resolver = Self.resolver(server)
            async let first = Self.outcome {
                try await domains.verify(id: owners.id, of: Self.ada, now: 200, resolver: resolver, mxHost: "mx")
            }
            async let second = Self.outcome {
                try await other.verify(id: pros.id, of: Self.pro, now: 200, resolver: resolver, mxHost: "mx")
            }
            let results = await [first, second]
            let verified = results.compactMap { try? $0.get()?.claim }.filter(\.isVerified)
            #expect(verified.count == 1, "round \(round)")
            // The other either found its claim gone (deleted by the winner: nil, a 404) or lost at the index: taken.
            let lost = results.filter {
                switch $0 {
                case .success(nil), .failure(DomainClaimError.taken): true
                default: false
                }
            }
            #expect(lost.count == 1, "round \(round)")
            let holder = try #require(try await domains.verifiedClaim(on: name)).holder
            #expect(verified.first?.holder == holder)
            let loser = holder == Self.ada ? Self.pro : Self.ada
            #expect(try await domains.claims(of: loser, now: 200).allSatisfy { $0.domain != name })
        }
    }

    static func outcome<T: Sendable>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    @Test(
        "delete asks the holder's own surface for mailboxes in its transaction: 'in use' refuses it",
        arguments: StorageBackend.allCases)
    func deleteInUse(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let agents = Mailboxes(kind: .owner, addresses: [])
        let mailtd = Mailboxes(kind: .proUser, addresses: ["left@kept.example"])
        let domains = CustomDomains(database: test.database, mailboxes: [agents, mailtd])
        let claim = try await domains.add("kept.example", for: Self.ada, limit: 5, served: [], now: 100)
        agents.inUse.withLock { $0 = true }
        await #expect(throws: DomainClaimError.inUse) { try await domains.delete(id: claim.id, of: Self.ada) }
        #expect(agents.asked.withLock { $0 } == [Self.ada.id + " kept.example"])
        #expect(mailtd.asked.withLock { $0 }.isEmpty, "another surface's mailboxes are not the owner's")
        #expect(try await domains.claim(id: claim.id, of: Self.ada) != nil)
        #expect(try await domains.delete(id: claim.id, of: Self.bob) == nil)
        agents.inUse.withLock { $0 = false }
        #expect(try await domains.delete(id: claim.id, of: Self.ada)?.domain == "kept.example")
        #expect(try await domains.delete(id: claim.id, of: Self.ada) == nil)

        #expect(try await domains.isAddressHeldElsewhere("Left@kept.example", than: Self.ada))
        #expect(try await !domains.isAddressHeldElsewhere("left@kept.example", than: Self.pro), "its own surface's")
    }

    @Test(
        "pending claims lapse after the window: listing, adding and the purge delete them; verified ones stay",
        arguments: StorageBackend.allCases)
    func lapse(_ backend: StorageBackend) async throws {
        let test = try Self.database(backend)
        let domains = CustomDomains(database: test.database, verificationWindow: 1000)
        let old = try await domains.add("old.example", for: Self.ada, limit: 1, served: [], now: 100)
        _ = try await domains.add("pro.example", for: Self.pro, limit: 1, served: [], now: 100)
        #expect(try await domains.claims(of: Self.ada, now: 1100) == [old])
        _ = try await domains.add("new.example", for: Self.ada, limit: 1, served: [], now: 1101)
        #expect(try await domains.claims(of: Self.ada, now: 1101).map(\.domain) == ["new.example"])
        let purged = try await test.database.write { try CustomDomains.purgeLapsed($0, now: 1101, window: 1000) }
        #expect(purged == 1, "the Pro user's lapsed claim")
        #expect(try await domains.count(of: Self.pro) == 0)
    }
}

/// One surface's mailboxes as a test sets them: whether its holder has some on a domain, and addresses it has.
final class Mailboxes: CustomDomainMailboxes {
    let holderKind: DomainHolder.Kind
    let addresses: Set<String>
    let inUse = Mutex(false)
    let asked = Mutex<[String]>([])

    init(kind: DomainHolder.Kind, addresses: Set<String>) {
        holderKind = kind
        self.addresses = addresses
    }

    func hasMailbox(at address: String) async throws -> Bool { addresses.contains(address) }

    func hasMailboxes(holderID: String, on domain: String, connection: any SQLConnection) throws -> Bool {
        asked.withLock { $0.append(holderID + " " + domain) }
        return inUse.withLock { $0 }
    }
}
