import AuthCrypto
import Foundation
import JSON
import JWT
import SigningKeys
import Testing

/// A fresh temporary data directory, removed when the test ends.
final class TemporaryDataDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("postern-keys-\(UUID().uuidString)").path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var keys: String { path + "/keys" }

    func mode(_ name: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: keys + "/" + name)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: keys).filter { !$0.hasPrefix(".") }.sorted()
    }
}

@Suite("KeyStore")
struct KeyStoreTests {
    let ttl: Int64 = 3600

    func open(
        _ directory: TemporaryDataDirectory, at time: Int64 = now, privatePEM: String? = nil, publicPEM: String? = nil
    )
        throws -> KeyStore
    {
        try KeyStore(
            directory: directory.path, environmentPrivatePEM: privatePEM, environmentPublicPEM: publicPEM,
            maxTokenTTL: ttl, now: time)
    }

    @Test("first start generates an RSA, an Ed25519 and a P-256 key and an HMAC secret, mode 0600 in a 0700 directory")
    func firstStart() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        let infos = store.list()
        #expect(infos.count == 4)
        #expect(Set(infos.map(\.kind)) == [.rsa, .hmac, .ed25519, .p256])
        #expect(infos.allSatisfy { $0.isActive && $0.source == .dataDirectory && $0.createdAt == now })
        let rsa = try #require(infos.first { $0.kind == .rsa })
        let hmac = try #require(infos.first { $0.kind == .hmac })
        let ed25519 = try #require(infos.first { $0.kind == .ed25519 })
        let p256 = try #require(infos.first { $0.kind == .p256 })
        #expect(ed25519.algorithm == .edDSA)
        #expect(p256.algorithm == .es256)
        #expect(
            try directory.files()
                == ["\(hmac.kid).hmac", "\(rsa.kid).pem", "\(ed25519.kid).pem", "\(p256.kid).pem", "keys-p256.json", "keys.json"]
                .sorted())
        for file in try directory.files() { #expect(try directory.mode(file) == 0o600) }
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: directory.keys)[.posixPermissions] as? NSNumber
        #expect(directoryMode?.intValue == 0o700)
        #expect(hmac.kid.count == 16)
        let set = store.keySet()
        #expect(set.activeKID(for: .rs256) == rsa.kid)
        #expect(set.activeKID(for: .hs256) == hmac.kid)
        #expect(JWK.thumbprint(of: try #require(set.activeRSAPublicKey)) == rsa.kid)
        #expect(set.activeKID(for: .edDSA) == ed25519.kid)
        let edKey = try #require(set.key(kid: ed25519.kid)?.ed25519PublicKey)
        #expect(JWK.thumbprint(of: edKey) == ed25519.kid)
        let pem = try String(contentsOfFile: directory.keys + "/\(ed25519.kid).pem", encoding: .utf8)
        #expect(try Ed25519PrivateKey(pem: pem).publicKey.rawRepresentation == edKey.rawRepresentation)
        #expect(set.activeKID(for: .es256) == p256.kid)
        let ecKey = try #require(set.key(kid: p256.kid)?.p256PublicKey)
        #expect(JWK.thumbprint(of: ecKey) == p256.kid)
        let ecPEM = try String(contentsOfFile: directory.keys + "/\(p256.kid).pem", encoding: .utf8)
        #expect(try P256PrivateKey(pem: ecPEM).publicKey.x == ecKey.x)
        let secretFile = try String(contentsOfFile: directory.keys + "/\(hmac.kid).hmac", encoding: .utf8)
        #expect(Hex.decode(secretFile.trimmingCharacters(in: .whitespacesAndNewlines))?.count == 32)
    }

    @Test("keys are stable across restarts: a token from the first instance verifies in the second")
    func persistence() throws {
        let directory = try TemporaryDataDirectory()
        let first = try open(directory)
        let hsToken = try first.keySet().sign(claims(), algorithm: .hs256)
        let rsToken = try first.keySet().sign(claims(.rs256), algorithm: .rs256)
        let edToken = try sign(first.keySet(), .edDSA)
        let metadata = try String(contentsOfFile: directory.keys + "/keys.json", encoding: .utf8)

        let second = try open(directory, at: now + 60)
        #expect(second.list() == first.list())
        #expect(try String(contentsOfFile: directory.keys + "/keys.json", encoding: .utf8) == metadata)
        #expect(try second.keySet().verify(hsToken, policy: policy(.hs256), now: now).pur == "session")
        #expect(try second.keySet().verify(rsToken, policy: policy(.rs256), now: now).pur == "capability")
        #expect(try second.keySet().verify(edToken, policy: policy(.edDSA), now: now).pur == "oauth-access")
        #expect(second.keySet().jwksJSON() == first.keySet().jwksJSON())
    }

    @Test("rotation: old tokens keep verifying, both RSA keys are published, the old one drops after its window")
    func rotation() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        let oldRSA = try #require(store.keySet().activeKID(for: .rs256))
        let oldHMAC = try #require(store.keySet().activeKID(for: .hs256))
        let oldRS = try store.keySet().sign(claims(.rs256, ttl: ttl), algorithm: .rs256)
        let oldHS = try store.keySet().sign(claims(ttl: ttl), algorithm: .hs256)
        let oldEdDSA = try #require(store.keySet().activeKID(for: .edDSA))
        let oldED = try sign(store.keySet(), .edDSA, ttl: 900)

        let rotatedAt = now + 10
        let added = try store.rotate(now: rotatedAt)
        #expect(Set(added.map(\.kind)) == [.rsa, .hmac, .ed25519, .p256])
        let set = store.keySet()
        #expect(set.activeKID(for: .rs256) != oldRSA)
        #expect(set.activeKID(for: .hs256) != oldHMAC)
        #expect(set.activeKID(for: .edDSA) != oldEdDSA)
        #expect(try set.verify(oldRS, policy: policy(.rs256), now: now + 20).jti != nil)
        #expect(try set.verify(oldHS, policy: policy(.hs256), now: now + 20).jti != nil)
        #expect(try set.verify(oldED, policy: policy(.edDSA), now: now + 20).jti != nil)
        let fresh = try set.sign(claims(.rs256), algorithm: .rs256)
        #expect(fresh.hasPrefix(b64(#"{"alg":"RS256","typ":"JWT","kid":"\#(set.activeKID(for: .rs256)!)"}"#)))
        let freshED = try sign(set, .edDSA)
        #expect(freshED.hasPrefix(b64(#"{"alg":"EdDSA","typ":"at+jwt","kid":"\#(set.activeKID(for: .edDSA)!)"}"#)))
        let published = try #require(try JSONValue.parse(set.jwksJSON())["keys"]?.arrayValue).compactMap {
            $0["kid"]?.stringValue
        }
        #expect(
            published.prefix(4) == [set.activeKID(for: .rs256)!, oldRSA, set.activeKID(for: .edDSA)!, oldEdDSA])
        #expect(published.count == 6 && published[4] == set.activeKID(for: .es256))
        let retired = try #require(store.list().first { $0.kid == oldRSA })
        #expect(retired.retiredAt == rotatedAt)
        #expect(retired.dropsAt == rotatedAt + ttl + 30)
        #expect(!retired.isActive)

        // Another process (a restart) sees the same state.
        let reopened = try open(directory, at: rotatedAt + 5)
        #expect(reopened.list() == store.list())

        // Still inside the window: kept.
        try store.reload(now: rotatedAt + ttl + 30)
        #expect(store.keySet().key(kid: oldRSA) != nil)
        // Past the window: dropped from the set, the JWKS, the metadata and the disk.
        try store.reload(now: rotatedAt + ttl + 31)
        #expect(store.keySet().key(kid: oldRSA) == nil)
        #expect(store.keySet().key(kid: oldHMAC) == nil)
        #expect(store.keySet().key(kid: oldEdDSA) == nil)
        #expect(!String(decoding: store.keySet().jwksJSON(), as: UTF8.self).contains(oldRSA))
        #expect(!String(decoding: store.keySet().jwksJSON(), as: UTF8.self).contains(oldEdDSA))
        #expect(store.list().count == 4)
        #expect(try directory.files().count == 6)
        let error = #expect(throws: JWTError.self) {
            try store.keySet().verify(oldRS, policy: policy(.rs256), now: now)
        }
        #expect(error?.code == .unknownKey)
    }

    @Test("JWT_PRIVATE_KEY with literal \\n is the active RSA key; nothing RSA is written to disk")
    func environmentKey() throws {
        let directory = try TemporaryDataDirectory()
        let pem = try sharedRSAKey.pkcs8PEM
        let oneLine = pem.replacingOccurrences(of: "\n", with: "\\n")
        let publicOneLine = sharedRSAKey.publicKey.pem.replacingOccurrences(of: "\n", with: "\\n")
        let store = try open(directory, privatePEM: oneLine, publicPEM: publicOneLine)
        let kid = JWK.thumbprint(of: sharedRSAKey.publicKey)
        #expect(store.keySet().activeKID(for: .rs256) == kid)
        #expect(store.list().first { $0.kind == .rsa }?.source == .environment)
        // The PEM files are the Ed25519 and P-256 keys', which the environment does not replace.
        let ed25519 = try #require(store.list().first { $0.kind == .ed25519 })
        let p256 = try #require(store.list().first { $0.kind == .p256 })
        #expect(
            try directory.files().filter { $0.hasSuffix(".pem") } == ["\(ed25519.kid).pem", "\(p256.kid).pem"].sorted())
        #expect(ed25519.source == .dataDirectory && ed25519.isActive)
        let token = try store.keySet().sign(claims(.rs256), algorithm: .rs256)
        let verifier = try JWTKeySet(
            keys: [JWTKey.rsa(kid: kid, publicKey: sharedRSAKey.publicKey)], activeHMAC: nil, activeRSA: nil)
        #expect(try verifier.verify(token, policy: policy(.rs256), now: now).pur == "capability")
        // Rotation with an environment RSA key rotates the HMAC secret, the Ed25519 and the P-256 key only.
        let added = try store.rotate(now: now + 1)
        #expect(Set(added.map(\.kind)) == [.hmac, .ed25519, .p256])
        #expect(store.keySet().activeKID(for: .rs256) == kid)
    }

    @Test("switching to JWT_PRIVATE_KEY retires the generated RSA key, which stays published for its window")
    func switchToEnvironment() throws {
        let directory = try TemporaryDataDirectory()
        let generated = try #require(try open(directory).keySet().activeKID(for: .rs256))
        let store = try open(directory, at: now + 100, privatePEM: try sharedRSAKey.pkcs8PEM)
        #expect(store.keySet().activeKID(for: .rs256) == JWK.thumbprint(of: sharedRSAKey.publicKey))
        #expect(store.list().first { $0.kid == generated }?.retiredAt == now + 100)
        #expect(store.keySet().key(kid: generated) != nil)
    }

    @Test("unusable environment keys are refused with a message that names the variable, not the key")
    func environmentRefusals() throws {
        let directory = try TemporaryDataDirectory()
        let other = try RSAPrivateKey.generate()
        let mismatch = #expect(throws: KeyStoreError.self) {
            try open(directory, privatePEM: try sharedRSAKey.pkcs8PEM, publicPEM: other.publicKey.pem)
        }
        #expect(mismatch?.code == .configuration)
        #expect(mismatch?.reason.contains("JWT_PUBLIC_KEY") == true)
        let publicOnly = #expect(throws: KeyStoreError.self) { try open(directory, publicPEM: other.publicKey.pem) }
        #expect(publicOnly?.code == .configuration)
        let garbage = "-----BEGIN PRIVATE KEY-----\\nc2VjcmV0LXZhbHVl\\n-----END PRIVATE KEY-----"
        let bad = #expect(throws: KeyStoreError.self) { try open(directory, privatePEM: garbage) }
        #expect(bad?.reason.contains("JWT_PRIVATE_KEY") == true)
        #expect(bad?.description.contains("c2VjcmV0") == false)
        // Empty values mean unset.
        #expect(try open(directory, privatePEM: "", publicPEM: "").list().count == 4)
    }

    @Test("key files and the directory found with wider modes are tightened to 0600 and 0700")
    func tightenModes() throws {
        let directory = try TemporaryDataDirectory()
        let kids = try open(directory).list().map(\.kid)
        let files = try directory.files()
        for file in files {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.keys + "/" + file)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.keys)
        #expect(try open(directory).list().map(\.kid) == kids)
        for file in files { #expect(try directory.mode(file) == 0o600) }
        let directoryMode =
            try FileManager.default.attributesOfItem(atPath: directory.keys)[.posixPermissions] as? NSNumber
        #expect(directoryMode?.intValue == 0o700)
    }

    @Test("a damaged key directory is refused instead of silently replaced")
    func corruption() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        let rsa = try #require(store.list().first { $0.kind == .rsa })
        try FileManager.default.removeItem(atPath: directory.keys + "/\(rsa.kid).pem")
        let missing = #expect(throws: KeyStoreError.self) { try open(directory) }
        #expect(missing?.code == .corrupt)

        let second = try TemporaryDataDirectory()
        _ = try open(second)
        try Data("{\"version\":1,\"keys\":[{\"kid\":\"../../x\",\"kind\":\"rsa\",\"created_at\":1}]}".utf8)
            .write(to: URL(fileURLWithPath: second.keys + "/keys.json"))
        let hostile = #expect(throws: KeyStoreError.self) { try open(second) }
        #expect(hostile?.code == .corrupt)

        // An Ed25519 file that holds another key than its kid names.
        let third = try TemporaryDataDirectory()
        let ed25519 = try #require(try open(third).list().first { $0.kind == .ed25519 })
        let path = third.keys + "/\(ed25519.kid).pem"
        try FileManager.default.removeItem(atPath: path)
        try Data(try Ed25519PrivateKey.generate().pkcs8PEM.utf8).write(to: URL(fileURLWithPath: path))
        let swapped = #expect(throws: KeyStoreError.self) { try open(third) }
        #expect(swapped?.code == .corrupt)
    }

    @Test("retire --now: tokens of the key are refused at once, a new key signs, the others still verify")
    func retireNow() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        // A server on the same directory, which picks the retirement up at its reload.
        let server = try open(directory)
        let leaked = try #require(store.keySet().activeKID(for: .rs256))
        let leakedToken = try sign(store.keySet(), .rs256)
        let sessionToken = try sign(store.keySet(), .hs256)
        let accessToken = try sign(store.keySet(), .edDSA)

        let added = try store.retireNow(kid: leaked, now: now + 10)
        #expect(added.map(\.kind) == [.rsa])
        #expect(added.first?.isActive == true && added.first?.kid != leaked)
        try server.reload(now: now + 11)
        for set in [store.keySet(), server.keySet()] {
            let refused = #expect(throws: JWTError.self) {
                try set.verify(leakedToken, policy: policy(.rs256), now: now + 11)
            }
            #expect(refused?.code == .unknownKey)
            #expect(!String(decoding: set.jwksJSON(), as: UTF8.self).contains(leaked))
            #expect(try set.verify(sessionToken, policy: policy(.hs256), now: now + 11).jti != nil)
            #expect(try set.verify(accessToken, policy: policy(.edDSA), now: now + 11).jti != nil)
            #expect(set.activeKID(for: .rs256) == added.first?.kid)
            #expect(try set.verify(sign(set, .rs256), policy: policy(.rs256), now: now + 11).jti != nil)
        }
        #expect(!store.list().map(\.kid).contains(leaked))
        #expect(try !directory.files().contains("\(leaked).pem"))
        #expect(try open(directory, at: now + 12).list() == store.list())
    }

    @Test("retire --now of a rotated-out key drops it before its window ends and makes no new key")
    func retireRetiredKey() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        let old = try #require(store.keySet().activeKID(for: .hs256))
        let oldToken = try sign(store.keySet(), .hs256)
        try store.rotate(now: now + 1)
        #expect(try store.keySet().verify(oldToken, policy: policy(.hs256), now: now + 2).jti != nil)
        let active = store.list().filter(\.isActive)
        #expect(try store.retireNow(kid: old, now: now + 2).isEmpty)
        #expect(throws: JWTError.self) { try store.keySet().verify(oldToken, policy: policy(.hs256), now: now + 2) }
        #expect(store.list().filter(\.isActive) == active)
    }

    @Test("retire --now refuses a kid no key has, and JWT_PRIVATE_KEY's key, with clear errors")
    func retireRefusals() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory, privatePEM: try sharedRSAKey.pkcs8PEM)
        let before = store.list()
        let unknown = #expect(throws: KeyStoreError.self) { try store.retireNow(kid: "0123456789abcdef", now: now) }
        #expect(unknown?.code == .unknownKey)
        #expect(unknown?.reason == "no signing key has kid 0123456789abcdef")
        let environment = #expect(throws: KeyStoreError.self) {
            try store.retireNow(kid: JWK.thumbprint(of: sharedRSAKey.publicKey), now: now)
        }
        #expect(environment?.code == .configuration)
        #expect(environment?.reason.contains("JWT_PRIVATE_KEY") == true)
        #expect(store.list() == before)
    }

    @Test("a key directory from before Ed25519 keys gets one at its next start; its other keys stay as they were")
    func upgradeAddsEd25519() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        let ed25519 = try #require(store.list().first { $0.kind == .ed25519 })
        let rsToken = try store.keySet().sign(claims(.rs256), algorithm: .rs256)
        // Make the directory what an older Postern left: no Ed25519 record, no Ed25519 file.
        let metadataPath = directory.keys + "/keys.json"
        let metadata = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: metadataPath))))
        let older = try #require(metadata["keys"]?.arrayValue).filter { $0["kind"] != "ed25519" }
        try Data(JSONValue.object([("version", 1), ("keys", .array(older))]).serialize())
            .write(to: URL(fileURLWithPath: metadataPath))
        try FileManager.default.removeItem(atPath: directory.keys + "/\(ed25519.kid).pem")

        let upgraded = try open(directory, at: now + 60)
        let added = try #require(upgraded.list().first { $0.kind == .ed25519 })
        #expect(added.kid != ed25519.kid && added.isActive && added.createdAt == now + 60)
        #expect(upgraded.list().filter { $0.kind != .ed25519 } == store.list().filter { $0.kind != .ed25519 })
        #expect(try upgraded.keySet().verify(rsToken, policy: policy(.rs256), now: now).pur == "capability")
        #expect(
            try upgraded.keySet().verify(sign(upgraded.keySet(), .edDSA), policy: policy(.edDSA), now: now).jti != nil)
        #expect(try directory.files().count == 6)
    }

    /// The kinds a metadata file of `directory` records.
    private func kinds(_ directory: TemporaryDataDirectory, _ name: String) throws -> [String] {
        let metadata = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: directory.keys + "/" + name))))
        return try #require(metadata["keys"]?.arrayValue).compactMap { $0["kind"]?.stringValue }
    }

    @Test("keys.json keeps the kinds the release before reads; the P-256 keys live in keys-p256.json and reload from it")
    func p256OutOfKeysJSON() throws {
        let directory = try TemporaryDataDirectory()
        let store = try open(directory)
        let first = try #require(store.keySet().activeKID(for: .es256))
        let token = try sign(store.keySet(), .es256)
        let older: Set<String> = ["rsa", "hmac", "ed25519"]
        #expect(Set(try kinds(directory, "keys.json")) == older)
        #expect(try kinds(directory, "keys-p256.json") == ["p256"])
        // Rotated: the old and the new P-256 key in their file, keys.json still without one.
        try store.rotate(now: now + 10)
        let second = try #require(store.keySet().activeKID(for: .es256))
        #expect(second != first)
        #expect(try kinds(directory, "keys-p256.json") == ["p256", "p256"])
        let rotated = try kinds(directory, "keys.json")
        #expect(Set(rotated) == older && rotated.count == 6)
        // Retired at once: its record and file go, a new active key is made.
        try store.retireNow(kid: second, now: now + 20)
        let third = try #require(store.keySet().activeKID(for: .es256))
        #expect(try kinds(directory, "keys-p256.json") == ["p256", "p256"])
        #expect(try !directory.files().contains("\(second).pem"))
        #expect(Set(try kinds(directory, "keys.json")) == older)

        let reopened = try open(directory, at: now + 30)
        #expect(reopened.list() == store.list())
        #expect(reopened.keySet().activeKID(for: .es256) == third)
        #expect(verifies(reopened.keySet(), token, .es256))
        // Past the window the first goes too.
        try reopened.reload(now: now + 10 + ttl + 31)
        #expect(reopened.keySet().key(kid: first) == nil)
        #expect(try kinds(directory, "keys-p256.json") == ["p256"])
    }

    @Test("a P-256 entry in keys.json, which only a development build wrote, is refused with what to do")
    func p256InKeysJSONRefused() throws {
        let directory = try TemporaryDataDirectory()
        _ = try open(directory)
        let keysJSON = directory.keys + "/keys.json"
        let p256JSON = directory.keys + "/keys-p256.json"
        let metadata = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: keysJSON))))
        let p256 = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: p256JSON))))
        let merged = try #require(metadata["keys"]?.arrayValue) + (try #require(p256["keys"]?.arrayValue))
        try Data(JSONValue.object([("version", 1), ("keys", .array(merged))]).serialize())
            .write(to: URL(fileURLWithPath: keysJSON))
        try FileManager.default.removeItem(atPath: p256JSON)
        let refused = #expect(throws: KeyStoreError.self) { try open(directory) }
        #expect(refused?.code == .corrupt)
        #expect(refused?.reason.contains("keys-p256.json") == true)
    }
}

@Suite("KeyStore concurrency")
struct KeyStoreConcurrencyTests {
    @Test("stores opened at once on a fresh directory agree on one set of keys")
    func concurrentFirstStart() async throws {
        let directory = try TemporaryDataDirectory()
        let path = directory.path
        let lists = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let store = try KeyStore(
                        directory: path, environmentPrivatePEM: nil, environmentPublicPEM: nil, maxTokenTTL: 3600,
                        now: now)
                    return store.list().map(\.kid).sorted()
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(lists.count == 4)
        #expect(Set(lists).count == 1)
        #expect(lists.first?.count == 4)
        #expect(try directory.files().count == 6)
    }
}
